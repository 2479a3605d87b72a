import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';

/** RGB of a pixel of a PNG file. */
export async function pixelAt(pngPath: string, x: number, y: number): Promise<[number, number, number]> {
  const data = await sharp(pngPath).extract({ left: x, top: y, width: 1, height: 1 }).removeAlpha().raw().toBuffer();
  return [data[0] ?? -1, data[1] ?? -1, data[2] ?? -1];
}

export async function solidPng(path: string, rgb: { r: number; g: number; b: number }): Promise<void> {
  await sharp({ create: { width: 50, height: 50, channels: 3, background: rgb } }).png().toFile(path);
}

const BOX = 'position:absolute;width:100px;height:100px';

/**
 * A version folder whose page uses a relative stylesheet and a relative image: a magenta
 * block at (0,0)-(100,100) from the CSS, a blue image at (200,100)-(250,150), text below.
 */
export async function writeStyledMockup(rootDir: string): Promise<string> {
  await mkdir(join(rootDir, 'css'), { recursive: true });
  await mkdir(join(rootDir, 'img'), { recursive: true });
  await writeFile(
    join(rootDir, 'css', 'site.css'),
    `html, body { margin: 0; background: #ffffff; font: 24px 'DejaVu Sans', sans-serif; }
     #block { ${BOX}; left: 0; top: 0; background: #e4007c; }
     #dot { position: absolute; left: 200px; top: 100px; width: 50px; height: 50px; }
     p { position: absolute; top: 200px; left: 20px; color: #1d2433; }`,
  );
  await solidPng(join(rootDir, 'img', 'dot.png'), { r: 0, g: 90, b: 255 });
  const htmlPath = join(rootDir, 'index.html');
  await writeFile(
    htmlPath,
    `<!doctype html><html><head><link rel="stylesheet" href="css/site.css"></head>
     <body><div id="block"></div><img id="dot" src="img/dot.png"><p>Quarterly evaluation report</p></body></html>`,
  );
  // The same page, but its script holds up `load` for a while: renders certainly in flight.
  await writeFile(
    join(rootDir, 'slow.html'),
    `<!doctype html><html><head><link rel="stylesheet" href="css/site.css"></head>
     <body><div id="block"></div><script>const end = Date.now() + 800; while (Date.now() < end);</script></body></html>`,
  );
  return htmlPath;
}

/**
 * A page that tries to reach files outside its folder, by `../`, by a symlinked folder, by a
 * symlinked file and by an absolute file URL. Each escape would paint its box red or show a
 * green image; the in-folder stylesheet paints a blue marker, proving CSS loads at all.
 * Boxes sit at x = 0 (marker), 100 (../), 200 (symlinked folder), 300 (symlinked file);
 * images at y = 150: x = 0 (../), 100 (absolute URL).
 */
export async function writeEscapingMockup(baseDir: string): Promise<{ htmlPath: string; rootDir: string }> {
  const rootDir = join(baseDir, 'version');
  const outside = join(baseDir, 'outside');
  await mkdir(rootDir, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'dotdot.css'), '#dotdot { background: #ff0000 !important; }');
  await writeFile(join(outside, 'linked-dir.css'), '#linked-dir { background: #ff0000 !important; }');
  await writeFile(join(outside, 'linked-file.css'), '#linked-file { background: #ff0000 !important; }');
  await solidPng(join(outside, 'green.png'), { r: 0, g: 255, b: 0 });
  await symlink(outside, join(rootDir, 'shared'));
  await symlink(join(outside, 'linked-file.css'), join(rootDir, 'theme.css'));
  await writeFile(
    join(rootDir, 'own.css'),
    `body { margin: 0; background: #ffffff; }
     #marker { ${BOX}; left: 0; top: 0; background: #0000ff; }
     #dotdot { ${BOX}; left: 100px; top: 0; } #linked-dir { ${BOX}; left: 200px; top: 0; }
     #linked-file { ${BOX}; left: 300px; top: 0; }
     img { position: absolute; top: 150px; width: 50px; height: 50px; }`,
  );
  const htmlPath = join(rootDir, 'index.html');
  await writeFile(
    htmlPath,
    `<!doctype html><html><head>
     <link rel="stylesheet" href="own.css">
     <link rel="stylesheet" href="../outside/dotdot.css">
     <link rel="stylesheet" href="shared/linked-dir.css">
     <link rel="stylesheet" href="theme.css">
     </head><body>
     <div id="marker"></div><div id="dotdot"></div><div id="linked-dir"></div><div id="linked-file"></div>
     <img src="../outside/green.png" style="left: 0">
     <img src="file://${join(outside, 'green.png')}" style="left: 100px">
     </body></html>`,
  );
  return { htmlPath, rootDir };
}

/** A page that tries every way we know to reach `origin` (an http://host:port on loopback). */
export async function writeNetworkMockup(rootDir: string, origin: string, stunPort: number): Promise<string> {
  await mkdir(rootDir, { recursive: true });
  const ws = origin.replace(/^http/, 'ws');
  const htmlPath = join(rootDir, 'index.html');
  await writeFile(
    htmlPath,
    `<!doctype html><html><head>
     <link rel="stylesheet" href="${origin}/style.css">
     <link rel="preconnect" href="${origin}"><link rel="prefetch" href="${origin}/prefetch">
     <script src="${origin}/script.js"></script>
     <style>@font-face { font-family: Remote; src: url(${origin}/font.woff2); } body { font-family: Remote; }</style>
     </head><body>
     <p>offline</p>
     <img src="${origin}/x"><img src="${origin.replace('127.0.0.1', 'localhost')}/y">
     <iframe src="${origin}/frame"></iframe>
     <script>
       fetch('${origin}/fetch').catch(() => {});
       navigator.sendBeacon('${origin}/beacon', 'x');
       try { new WebSocket('${ws}/socket'); } catch {}
       try { new EventSource('${origin}/events'); } catch {}
       const peer = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${stunPort}' }] });
       peer.createDataChannel('x');
       peer.createOffer().then((offer) => peer.setLocalDescription(offer));
     </script>
     </body></html>`,
  );
  return htmlPath;
}
