#!/usr/bin/env node
// Diagnostic (not part of run.mjs): client CPU per webhook-like POST (~600 B JSON, keep-alive, a node:http server
// in another process) through undici's `request` (a body stream read by an async iterator, an abort signal) and
// through `dispatch` with a handler that gathers the bytes itself, as libs/webhook-sender does. One at a time and
// 50 in flight, two rounds. ~20 s. Usage: node bench/undici-dispatch.mjs
import { createServer } from 'node:http';
import { fork } from 'node:child_process';
import { Agent, request } from 'undici';
if (process.argv[2] === 'server') {
  createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true,"x":"' + 'y'.repeat(100) + '"}');
    });
  }).listen(0, '127.0.0.1', function () {
    process.send(this.address().port);
  });
} else {
  const child = fork(new URL(import.meta.url).pathname, ['server']);
  const port = await new Promise((r) => child.once('message', r));
  const url = `http://127.0.0.1:${port}/hook`;
  const agent = new Agent({ connections: 64 });
  const body = JSON.stringify({ a: 'x'.repeat(600) });
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'x',
    'webhook-id': 'a',
    'webhook-timestamp': '1',
    'webhook-signature': 'v1,abc',
  };
  async function viaRequest() {
    const ac = new AbortController();
    const t = setTimeout(() => ac.abort(), 10000);
    try {
      const r = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
        signal: ac.signal,
        headersTimeout: 10000,
        bodyTimeout: 10000,
      });
      const chunks = [];
      for await (const c of r.body) chunks.push(c);
      return Buffer.concat(chunks);
    } finally {
      clearTimeout(t);
    }
  }
  const u = new URL(url);
  function viaDispatch() {
    return new Promise((resolve, reject) => {
      const chunks = [];
      let status = 0;
      const t = setTimeout(() => abortFn?.(new Error('timeout')), 10000);
      let abortFn;
      agent.dispatch(
        {
          origin: u.origin,
          path: u.pathname,
          method: 'POST',
          headers,
          body,
          headersTimeout: 10000,
          bodyTimeout: 10000,
        },
        {
          onRequestStart(controller) {
            abortFn = (e) => controller.abort(e);
          },
          onResponseStart(controller, statusCode, hdrs) {
            status = statusCode;
          },
          onResponseData(controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            clearTimeout(t);
            resolve(Buffer.concat(chunks));
          },
          onResponseError(controller, err) {
            clearTimeout(t);
            reject(err);
          },
        },
      );
    });
  }
  async function measure(name, fn, inflight, n) {
    const run = async (count) => {
      let i = 0;
      await Promise.all(
        Array.from({ length: inflight }, async () => {
          while (i++ < count) await fn();
        }),
      );
    };
    await run(3000);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run(n);
    const c = process.cpuUsage(c0);
    const wall = performance.now() - t0;
    console.log(
      `| ${name} | ${inflight} | ${((c.user + c.system) / n).toFixed(1)} µs | ${((n / wall) * 1000).toFixed(0)} /s |`,
    );
  }
  console.log('| undici API | in flight | client CPU per request | requests/s |\n| --- | --- | --- | --- |');
  for (let k = 0; k < 2; k++) {
    await measure('request ', viaRequest, 1, 5000);
    await measure('dispatch', viaDispatch, 1, 5000);
    await measure('request ', viaRequest, 50, 20000);
    await measure('dispatch', viaDispatch, 50, 20000);
  }
  child.kill();
  await agent.close();
}
