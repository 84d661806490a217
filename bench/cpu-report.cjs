// Preloaded (`node --require`) into every process the cli suite times: at exit, writes the CPU time the process
// used (user + system, microseconds) to file descriptor 3, which the suite reads. On a machine shared with other
// work, a process waits for a core for much of its wall-clock time; its CPU time is what it costs.
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeSync(3, `${user + system}\n`);
});
