// The HTTP proxy of Anthropic's sandbox runtime (@anthropic-ai/sandbox-runtime), allowing every
// host, on a loopback port printed to stdout: the other side of bench/proxy.sh's comparison.
//   node bench/srt_proxy.mjs PATH-TO/node_modules/@anthropic-ai/sandbox-runtime
import { pathToFileURL } from 'node:url';
const root = process.argv[2];
const { createHttpProxyServer } = await import(pathToFileURL(`${root}/dist/sandbox/http-proxy.js`).href);
const server = createHttpProxyServer({ filter: () => true });
server.listen(0, '127.0.0.1', () => {
  console.log(server.address().port);
});
