-- A page narrowed to one model and one harness (the common "how does this model do on this
-- harness" view) had only the model prefix to go on: it visited every run of the model and
-- sorted them (33 ms at 100,000 runs). These lead with both filters, then the order, so the
-- page is read in index order and stops after offset + limit rows, and its total counts
-- index entries only (decode_error rides along so the count needs no row lookups).
CREATE INDEX runs_model_harness_cost ON runs (model_id, harness, published, cost, id, decode_error) WHERE decode_error IS NULL;
CREATE INDEX runs_model_harness_published_order ON runs (model_id, harness, published_at, id) WHERE published = 1 AND decode_error IS NULL;
