// Starts the MongoDB wire-protocol stand-in (in memory) on 127.0.0.1:<port> and prints
// "ready <port>". Stops on SIGTERM/SIGINT. For tests only: it enforces no unique secondary
// index and never expires TTL indexes.
import { CongoServer } from './smartmongo/dist_ts/congodb/index.js';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node server.mjs <port>');
  process.exit(2);
}
const server = new CongoServer({ port, host: '127.0.0.1', storage: 'memory' });
await server.start();
console.log(`ready ${port}`);
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
