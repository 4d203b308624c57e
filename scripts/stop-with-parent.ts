// Loaded first (node --import) into the API and the worker that npm start runs, which it reaches over an IPC channel:
// when start.js goes without stopping them (SIGKILL, a crash), the channel closes, and they stop as on SIGTERM,
// draining first, rather than run on as orphans holding the port.
if (process.send) {
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel alone must not keep a process that has nothing else to do alive.
  process.channel?.unref();
}
export {};
