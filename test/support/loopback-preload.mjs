// Preload for `node --import`: forces servers that call listen(port[, cb]) with no host
// (server-everything does `app.listen(PORT, cb)`, i.e. all interfaces) onto 127.0.0.1.
import net from 'node:net';
const orig = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const isPort = typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]));
  if (isPort && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return orig.apply(this, args);
};
