// The official MCP TypeScript SDK's client against the gateway's /mcp:
// it lists the tools, calls a free and a paid one, and calls one that
// fails, which must arrive as a tool error (isError) with the API's
// message and code — not as a protocol error about the output schema.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.env.HOOKLINE_BASE_URL;
const key = process.env.HOOKLINE_API_KEY;

function check(ok, what) {
  if (!ok) throw new Error(what);
  console.log("ok:", what);
}

const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

const client = new Client({ name: "hookline-test-clients", version: "1" });
await client.connect(new StreamableHTTPClientTransport(new URL(base + "/mcp"), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
}));
const caps = client.getServerCapabilities();
check(caps?.tools && !caps.tools.listChanged && !caps.logging, `capabilities ${JSON.stringify(caps)}: tools only, no listChanged`);

const { tools } = await client.listTools();
const names = new Set(tools.map((t) => t.name));
check(tools.length >= 50 && names.has("get_credits") && names.has("generate_thumbnail") && names.has("get_thumbnail"), `${tools.length} tools listed`);

// callTool validates structuredContent against each tool's output schema.
const credits = await client.callTool({ name: "get_credits", arguments: {} });
const before = credits.structuredContent?.data?.credits?.total;
check(!credits.isError && before >= 1, `free tool get_credits: ${before} credits`);

const gen = await client.callTool({ name: "generate_thumbnail", arguments: { prompt: "I tested the 5 cheapest gaming laptops" } });
check(!gen.isError && gen.structuredContent?.data?.kind === "generated", `paid tool generate_thumbnail: ${gen.structuredContent?.data?.id}`);
const after = (await client.callTool({ name: "get_credits", arguments: {} })).structuredContent.data.credits.total;
check(after === before - 1, `generate_thumbnail charged 1 credit (${before} → ${after})`);

const bad = await client.callTool({ name: "get_thumbnail", arguments: { id: "not-a-uuid" } });
const msg = text(bad);
check(bad.isError === true && msg.includes("invalid_request") && msg.includes("HTTP 400") && bad.structuredContent?.code === "invalid_request" &&
  bad.structuredContent?.error?.length > 0, `failing tool get_thumbnail(not-a-uuid): isError with ${JSON.stringify(msg)}`);

const missing = await client.callTool({ name: "get_thumbnail", arguments: { id: "0b8a5c1e-1f1e-4c71-9a1e-3d2c9a0e1f00" } });
check(missing.isError === true && text(missing).includes("not_found") && missing.structuredContent?.status === 404, `unknown thumbnail: ${text(missing).split("\n")[0]}`);
await client.close();
