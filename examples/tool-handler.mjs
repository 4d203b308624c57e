// A Toolgate tool handler in a few dozen lines: verifies every tool_call with @toolgate/verifier, drops repeated
// event_ids (delivery is at least once), and answers the two tools of `npm run demo`.
//   TOOLGATE_WEBHOOK_SECRET=whsec_… PORT=4000 node examples/tool-handler.mjs
import { createServer } from 'node:http';
import { verifyToolCall, WebhookVerificationError } from '@toolgate/verifier';

const secrets = [process.env.TOOLGATE_WEBHOOK_SECRET, process.env.TOOLGATE_PREVIOUS_WEBHOOK_SECRET].filter(Boolean);
const answered = new Map(); // event_id → the answer given; use your database in production
const failedAttempts = new Map(); // event_id → failures so far (only `flaky_lookup` fails on purpose)

const tools = {
  find_customer: ({ customer_id }) => ({ status: 200, body: { id: customer_id, name: 'Ada Lovelace', plan: 'pro' } }),
  // Fails its first two attempts with 503 to show the retry schedule, then answers.
  flaky_lookup: ({ query }, eventId) => {
    const failures = failedAttempts.get(eventId) ?? 0;
    if (failures < 2) {
      failedAttempts.set(eventId, failures + 1);
      return { status: 503, body: { error: `warehouse busy (failure ${failures + 1} of 2 on purpose)` } };
    }
    return { status: 200, body: { query, in_stock: 7 } };
  },
};

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let event;
    try {
      event = verifyToolCall(Buffer.concat(chunks), req.headers, secrets); // the raw bytes, never re-serialized
    } catch (error) {
      if (error instanceof WebhookVerificationError) return reply(res, 401, { error: error.message });
      throw error;
    }
    if (answered.has(event.event_id)) return reply(res, 200, answered.get(event.event_id)); // a repeat: same answer
    const tool = tools[event.tool_name];
    if (!tool) return reply(res, 404, { error: `no tool named ${event.tool_name} here` });
    const { status, body } = tool(event.arguments, event.event_id);
    if (status === 200) answered.set(event.event_id, body);
    reply(res, status, body);
  });
}).listen(Number(process.env.PORT ?? 4000), '127.0.0.1', function () {
  console.log(`tool handler on http://127.0.0.1:${this.address().port}`);
});
