// Evaluates CEL expressions with @bufbuild/cel (a conformant implementation: it passes the
// cel-spec suite) so that tests/unit/manifests/crd_rules_test.cpp can compare the simulated
// cluster's evaluator with it. Input (argv[2]): a JSON array of {expr, self?, oldSelf?} with values
// in the test's encoding (ints {"$int":"N"}, uints {"$uint":"N"}, doubles {"$double":N or "NaN"},
// maps {"$map":[[k,v],…]}, lists as arrays; bytes by their size, {"$bytes-size":"N"}). Output: a
// JSON array, per case its result in the same encoding, or {"$error": message}.
import { readFileSync } from "node:fs";
import { run, isCelError, isCelMap, isCelList, isCelUint, celUint } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";

function decode(v) {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(decode);
  if ("$int" in v) return BigInt(v.$int);
  if ("$uint" in v) return celUint(BigInt(v.$uint));
  if ("$double" in v) return typeof v.$double === "string" ? Number(v.$double) : v.$double;
  if ("$map" in v) return new Map(v.$map.map(([k, x]) => [decode(k), decode(x)]));
  throw new Error("unknown encoding " + JSON.stringify(v));
}

function encode(v) {
  if (isCelError(v)) return { $error: String(v.message) };
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") return { $int: v.toString() };
  if (isCelUint(v)) return { $uint: v.value.toString() };
  if (typeof v === "number") return { $double: Number.isFinite(v) ? v : String(v) };
  if (isCelList(v)) return [...v].map(encode);
  if (isCelMap(v)) return { $map: [...v.entries()].map(([k, x]) => [encode(k), encode(x)]) };
  if (v instanceof Uint8Array) return { "$bytes-size": String(v.length) };
  if (v && typeof v.name === "string") return { $type: v.name };
  return { $error: "unencodable result" };
}

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = cases.map((c) => {
  const bindings = {};
  if ("self" in c) bindings.self = decode(c.self);
  if ("oldSelf" in c) bindings.oldSelf = decode(c.oldSelf);
  try {
    return encode(run(c.expr, bindings, { funcs: strings }));
  } catch (e) {
    return { $error: String(e && e.message ? e.message : e) };
  }
});
process.stdout.write(JSON.stringify(out));
