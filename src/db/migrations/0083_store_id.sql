-- The store's identity, written once when it is created (or first migrated to this
-- version) and kept in Redis beside the jobs it queued: a store deleted or replaced while
-- Redis still hands out its jobs is then refused at boot (src/runtime/store-identity.ts).
INSERT INTO store_meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));
