// Real calls through the TypeScript clients generated from the served
// document: @hey-api/openapi-ts's SDK (./hey) and openapi-typescript's
// types with openapi-fetch (./schema.d.ts). scripts/test-clients.sh
// generates both, compiles this file with tsc (strict) and runs it.
import createFetchClient from "openapi-fetch";
import { createPresignedUpload, getCredits, getThumbnail } from "./hey";
import { client } from "./hey/client.gen";
import type { paths } from "./schema";

const baseUrl = process.env.HOOKLINE_BASE_URL!;
const key = process.env.HOOKLINE_API_KEY!;

// A 1×1 PNG: its size and type are what the upload address is signed for.
const png = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
  console.log("ok:", what);
}

async function put(url: string, body: Uint8Array<ArrayBuffer>, contentType: string): Promise<[number, string]> {
  const res = await fetch(url, { method: "PUT", body, headers: { "Content-Type": contentType } });
  return [res.status, await res.text()];
}

async function main(): Promise<void> {
  client.setConfig({ baseUrl, auth: () => key });

  const credits = await getCredits();
  check(credits.response.status === 200 && (credits.data?.data.credits.total ?? 0) >= 1, "hey-api getCredits: 200 with a balance");

  const bad = await getThumbnail({ path: { id: "not-a-uuid" } });
  const envelope = bad.error as { error?: string; code?: string } | undefined;
  check(bad.response.status === 400 && envelope?.code === "invalid_request" && !!envelope.error,
    `hey-api getThumbnail with a malformed id: 400 ${envelope?.code}: ${envelope?.error}`);

  // The presigned PUT's rules, as the document states them.
  const up = await createPresignedUpload({ body: { fileName: "dot.png", fileType: " Image/PNG ", fileSize: png.length } });
  const address = up.data?.data;
  check(up.response.status === 200 && !!address, "hey-api createPresignedUpload: 200 for a type in any case");
  const [wrongType, wrongTypeBody] = await put(address!.uploadUrl, png, "image/jpeg");
  check(wrongType === 403 && wrongTypeBody.includes("SignatureDoesNotMatch"), "a PUT with another Content-Type: 403 SignatureDoesNotMatch");
  const [wrongCase] = await put(address!.uploadUrl, png, "Image/PNG");
  check(wrongCase === 403, "a PUT with fileType as sent, not as signed (lower case): 403");
  const [wrongSize] = await put(address!.uploadUrl, Uint8Array.from([...png, 0]), "image/png");
  check(wrongSize === 403, "a PUT one byte longer than fileSize: 403");
  const [right] = await put(address!.uploadUrl, png, "image/png");
  check(right === 200, "a PUT of exactly fileSize bytes with the signed Content-Type: 200");
  const stored = await fetch(address!.publicUrl);
  check(stored.status === 200 && new Uint8Array(await stored.arrayBuffer()).join() === png.join(), "publicUrl serves the bytes");

  const typed = createFetchClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  const again = await typed.GET("/api/v1/account/credits");
  check(again.response.status === 200 && again.data!.data.credits.total === credits.data!.data.credits.total,
    "openapi-typescript + openapi-fetch GET /api/v1/account/credits: the same balance");
  const missing = await typed.GET("/api/v1/thumbnails/{id}", { params: { path: { id: "0b8a5c1e-1f1e-4c71-9a1e-3d2c9a0e1f00" } } });
  check(missing.response.status === 404 && missing.error?.code === "not_found", "openapi-fetch getThumbnail of an unknown id: 404 not_found");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
