import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { describeProcess, fromPs, isRunning, listenerOf, stopProcess } from '../../src/local/process-table.js';

// Resolves at once for a child already reaped: stopProcess may return after Node has seen it exit.
const exited = (child: ReturnType<typeof spawn>) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));

describe('the process table', () => {
  it('describes a running process by its command line, and nothing once it has exited', async () => {
    const child = spawn('sleep', ['30']);
    try {
      expect(describeProcess(child.pid!)).toEqual({ pid: child.pid, args: 'sleep 30' });
      // What macOS reads: ps, where this machine reads /proc.
      expect(fromPs(child.pid!)).toEqual({ pid: child.pid, args: 'sleep 30' });
    } finally {
      child.kill();
      await exited(child);
    }
    expect(isRunning(child.pid!)).toBe(false);
    expect(fromPs(child.pid!)).toBeUndefined();
    expect(describeProcess(0)).toBeUndefined();
    expect(describeProcess(-1)).toBeUndefined();
  });

  it('an exited child not yet reaped (a zombie) is not running', async () => {
    // The shell stays; its child exits and is not waited for until the shell ends.
    const shell = spawn('sh', ['-c', 'sleep 0.1 & pid=$!; echo $pid; exec sleep 30']);
    const pid = Number(await new Promise<string>((r) => shell.stdout.once('data', (d: Buffer) => r(d.toString().trim()))));
    try {
      await new Promise((r) => setTimeout(r, 400));
      expect(isRunning(pid)).toBe(false);
      expect(fromPs(pid)).toBeUndefined();
    } finally {
      shell.kill();
      await exited(shell);
    }
  });

  it('stopProcess ends a process that ignores SIGTERM with SIGKILL after the grace time', async () => {
    const child = spawn('sh', ['-c', 'trap "" TERM; while :; do sleep 0.05; done']);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await stopProcess(child.pid!, 300);
    await exited(child);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(isRunning(child.pid!)).toBe(false);
  });

  it('names the process that listens on a port, and knows when none does', async () => {
    const child = spawn(process.execPath, ['-e', "require('net').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port) })"]);
    try {
      const port = Number(await new Promise<string>((r) => child.stdout.once('data', (d: Buffer) => r(d.toString().trim()))));
      expect(listenerOf(port)).toEqual({ listening: true, process: { pid: child.pid, args: expect.stringContaining(`${process.execPath} -e`) } });
    } finally {
      child.kill();
      await exited(child);
    }
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise((r) => free.close(r));
    expect(listenerOf(port)).toEqual({ listening: false });
  });
});
