// A webhook delivery verified with the Standard Webhooks reference
// package (standardwebhooks): an endpoint on loopback is registered
// through the API, sent the test message, and its delivery is verified;
// the same delivery with one byte changed must not verify.
import http from "node:http";
import { Webhook } from "standardwebhooks";

const base = process.env.HOOKLINE_BASE_URL;
const key = process.env.HOOKLINE_API_KEY;

function check(ok, what) {
  if (!ok) throw new Error(what);
  console.log("ok:", what);
}

async function api(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return [res.status, await res.json()];
}

let deliver;
const delivered = new Promise((resolve) => { deliver = resolve; });
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    res.writeHead(204).end();
    deliver({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/hook`;

const [created, ep] = await api("POST", "/api/v1/webhooks", { url, eventTypes: ["credits.low"] });
check(created === 201 && ep.data.secret.startsWith("whsec_"), `endpoint ${ep.data.id} registered`);
const [queued] = await api("POST", `/api/v1/webhooks/${ep.data.id}/test`);
check(queued === 202, "test message queued");

// unref: a pending timer must not keep the process alive after the delivery.
const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no delivery within 30 s")), 30000).unref());
const { headers, body } = await Promise.race([delivered, timeout]);
const wh = new Webhook(ep.data.secret);
const msg = wh.verify(body, headers);
check(msg.type === "webhooks.test" && msg.version === 1 && msg.data.endpointId === ep.data.id,
  `delivery ${headers["webhook-id"]} verified by standardwebhooks: ${JSON.stringify(msg)}`);
let tampered = false;
try {
  wh.verify(body.replace("webhooks.test", "webhooks.tesT"), headers);
} catch {
  tampered = true;
}
check(tampered, "a delivery with one byte changed does not verify");
server.close();
