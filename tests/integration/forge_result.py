"""Crafts result files for tests/integration/test_forged_results.sh.

  forge_result.py pub KEY.pem              the raw public key, hex (run.db's issued.pubkey)
  forge_result.py edit SRC DST [--sign KEY.pem] [FIELD=JSON ...]
      DST is SRC with the fields set (JSON values), its signature dropped
      and, with --sign, signed again with KEY.pem over the text benchgen
      signs (compact JSON, sorted keys, reals as %.17g): a file an attacker
      holding an issued attempt's key could write. JSON may be @FILE, a
      file holding the value.
"""
import json
import subprocess
import sys
import tempfile


def canon(v):
    if isinstance(v, dict):
        return "{" + ",".join(canon(k) + ":" + canon(v[k]) for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        # jansson: %.17g, then no '+' and no leading zeros in the exponent
        s = "%.17g" % v
        if "e" in s:
            m, e = s.split("e")
            sign = "-" if e.startswith("-") else ""
            s = m + "e" + sign + e.lstrip("+-").lstrip("0")
        return s if any(c in s for c in ".eE") else s + ".0"
    return json.dumps(v, ensure_ascii=False)


def main():
    if sys.argv[1] == "pub":
        der = subprocess.run(["openssl", "pkey", "-in", sys.argv[2], "-pubout", "-outform", "DER"],
                             check=True, capture_output=True).stdout
        print(der[-32:].hex())
        return
    src, dst, rest = sys.argv[2], sys.argv[3], sys.argv[4:]
    key = None
    if rest and rest[0] == "--sign":
        key, rest = rest[1], rest[2:]
    with open(src) as f:
        doc = json.load(f)
    doc.pop("signature", None)
    for kv in rest:
        k, v = kv.split("=", 1)
        if v.startswith("@"):
            with open(v[1:]) as f:
                v = f.read()
        doc[k] = json.loads(v)
    if key:
        # pkeyutl signs Ed25519 in one shot and wants the message in a file.
        with tempfile.NamedTemporaryFile() as msg:
            msg.write(canon(doc).encode())
            msg.flush()
            sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", msg.name],
                                 check=True, capture_output=True).stdout
        doc["signature"] = sig.hex()
    with open(dst, "w") as f:
        json.dump(doc, f)


main()
