"""releases.py NAME INDEX GOOD BAD PRE YANKED - the releases of NAME from GOOD to BAD.

Run by benchgen (gen/run/envs_releases.c) for `benchgen bisect`, with the
interpreter that makes the environments, so that "has a wheel for this
Python" means what the installer will find. INDEX is the base URL of a
package index (https://pypi.org/simple for PyPI; http://, https:// or
file://). The project's page is asked in its JSON form (PEP 691, the
"versions" list of API 1.1 where given) and read as HTML (PEP 503, with
PEP 592's data-yanked) when the index answers HTML.

A release is yanked when every file of it is yanked (PEP 592). Pre-releases
and developmental releases (PRE=0) and yanked releases (YANKED=0) are left
out, except GOOD and BAD themselves, which are always kept.

Prints on stdout, in version order from GOOD to BAD inclusive (descending
when GOOD is the newer):
  release VERSION WHEEL FILES
(WHEEL 1 when some file is a wheel this interpreter can install, else 0;
FILES the file names, comma-separated, "-" when none), then
  excluded VERSION REASON
for each release in the range left out, or
  error REASON
when the index could not be asked, or
  missing REASON
when GOOD or BAD is not a release there.
Standard library and pip's vendored `packaging` only.
"""
import html.parser
import json
import os
import re
import sys
import urllib.parse
import urllib.request

try:
    from packaging import tags, utils, version as pversion
except ImportError:  # the interpreter has pip, which carries its own copy
    from pip._vendor.packaging import tags, utils, version as pversion

TIMEOUT = float(os.environ.get("BENCHGEN_INDEX_TIMEOUT", "30"))


class Links(html.parser.HTMLParser):
    """The <a> elements of a PEP 503 project page."""

    def __init__(self):
        super().__init__()
        self.files = []

    def handle_starttag(self, tag, attrs):
        if tag != "a":
            return
        a = dict(attrs)
        href = a.get("href") or ""
        name = urllib.parse.unquote(urllib.parse.urlsplit(href).path.rsplit("/", 1)[-1])
        if name:
            self.files.append({"filename": name, "yanked": "data-yanked" in a})


def fetch(url):
    """The project page: (files, versions or None)."""
    if url.startswith("file://"):
        path = urllib.request.url2pathname(urllib.parse.urlsplit(url).path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        with open(path, "rb") as f:
            body, ctype = f.read(), "text/html"
    else:
        req = urllib.request.Request(url, headers={
            "Accept": "application/vnd.pypi.simple.v1+json, text/html;q=0.1",
            "User-Agent": "benchgen-bisect"})
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            body, ctype = r.read(), r.headers.get("Content-Type", "")
    if "json" in ctype:
        d = json.loads(body)
        files = [{"filename": f["filename"], "yanked": bool(f.get("yanked"))} for f in d.get("files", [])]
        return files, d.get("versions")
    p = Links()
    p.feed(body.decode("utf-8", "replace"))
    return p.files, None


def file_version(name, project):
    """(version, is_wheel) of a distribution file name, or None."""
    try:
        if name.endswith(".whl"):
            _, v, _, _ = utils.parse_wheel_filename(name)
            return v, True
        for ext in (".tar.gz", ".zip", ".tar.bz2", ".tgz"):
            if name.endswith(ext):
                stem = name[: -len(ext)]
                # the project's name may itself hold dashes: split after it
                m = re.match(r"^(.+?)-(\d[^-]*)$", stem)
                if m and utils.canonicalize_name(m.group(1)) == project:
                    return pversion.Version(m.group(2)), False
    except Exception:
        return None
    return None


def main():
    name, index, good, bad, pre, yanked = sys.argv[1:7]
    project = utils.canonicalize_name(name)
    url = index.rstrip("/") + "/" + project + "/"
    try:
        files, versions = fetch(url)
    except Exception as e:  # offline, a 404, a page that is no index
        print("error %s: %s" % (url, str(e).replace("\n", " ")))
        return
    try:
        g, b = pversion.Version(good), pversion.Version(bad)
    except pversion.InvalidVersion as e:
        print("error %s" % e)
        return
    here = set(tags.sys_tags())
    rel = {}
    for f in files:
        fv = file_version(f["filename"], project)
        if fv is None:
            continue
        v, wheel = fv
        r = rel.setdefault(v, {"files": [], "wheel": False, "yanked": True})
        r["files"].append(f["filename"])
        r["yanked"] = r["yanked"] and f["yanked"]
        if wheel and not r["wheel"]:
            _, _, _, ftags = utils.parse_wheel_filename(f["filename"])
            r["wheel"] = bool(here & set(ftags))
    for s in versions or []:  # a release may have no file at all
        try:
            rel.setdefault(pversion.Version(s), {"files": [], "wheel": False, "yanked": False})
        except pversion.InvalidVersion:
            pass
    for want in (g, b):
        if want not in rel:
            print("missing %s is not a release of %s on %s (%d releases there)" % (want, name, index, len(rel)))
            return
    lo, hi = min(g, b), max(g, b)
    for v in sorted(rel, reverse=g > b):
        if v < lo or v > hi:
            continue
        r = rel[v]
        if v not in (g, b):
            if (v.is_prerelease or v.is_devrelease) and pre != "1":
                print("excluded %s a pre-release" % v)
                continue
            if r["yanked"] and r["files"] and yanked != "1":
                print("excluded %s yanked" % v)
                continue
        # one line each, whatever the index sends: no space, control or non-ASCII character in a name
        files = ",".join(re.sub(r"[^\x21-\x7e]", "?", f) for f in sorted(r["files"]))
        print("release %s %d %s" % (v, r["wheel"], files or "-"))


if __name__ == "__main__":
    main()
