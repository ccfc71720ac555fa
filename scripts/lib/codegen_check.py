#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare objects compiled vanilla, default and on, function by function.

For each object, objdump -d -r of the three builds is split into
functions; each function's instructions are made independent of where
the function sits (addresses dropped, branch targets and section offsets
made symbolic), and its prefetches are counted: the prefetch
instructions in its text, and the x86 alternatives of its text whose
replacement is a prefetch (prefetchw() is one on x86_64).

The verdict, printed with the table and exit status 1 if broken:
  vanilla -> default  every function that differs lost prefetches (it is
                      a swept walk), and only objects the series modifies
                      have one; at least one swept function in all, unless
                      the series modifies no C file (its sweep held back:
                      then none);
  default -> on       some function gained prefetches, and the swept
                      functions have at least vanilla's again. Functions
                      that differ without gaining one are listed, not
                      failed: a callee grown by its prefetches is inlined
                      differently.
"""
import argparse
import collections
import json
import re
import subprocess
import sys

FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
SECTION_RE = re.compile(r"^Disassembly of section (\S+):$")
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
RELOC_RE = re.compile(r"^\s*([0-9a-f]+): (R_\S+)\s+(.*)$")
PREFETCH_RE = re.compile(r"^(prefetch(t0|t1|t2|nta|w|wt1)?|prfm|prfum)\b")
ALT_RELOC_RE = re.compile(r"^([0-9a-f]+) (R_\S+)\s+(\S+?)(?:\+0x([0-9a-f]+))?$")


def normalize(text):
    text = re.sub(r"\b[0-9a-f]+ <", "<", text)                       # branch targets
    text = re.sub(r"(\.[\w.]+)([+-]0x[0-9a-f]+)", r"\1+OFF", text)   # section offsets
    # __UNIQUE_ID_ symbols end in __COUNTER__, which any header above moves
    text = re.sub(r"(__UNIQUE_ID_\w*?)\d+\b", r"\1N", text)
    return re.sub(r"\s+", " ", text).strip()


class ObjectCode:
    """The functions of one object file and their prefetch counts."""

    def __init__(self, path, objdump):
        self.path = path
        self.functions = collections.OrderedDict()   # "section:name" -> [insn]
        self.direct = collections.Counter()           # "section:name" -> prefetches
        self.alt = collections.Counter()
        self._starts = collections.defaultdict(list)  # section -> [(offset, key)]
        self._repl_prefetch = set()                    # offsets in .altinstr_replacement
        out = subprocess.run([objdump, "-d", "-r", "--no-show-raw-insn", path],
                             check=True, capture_output=True, text=True).stdout
        self._parse_disassembly(out)
        relocs = subprocess.run([objdump, "-r", "-j", ".altinstructions", path],
                                capture_output=True, text=True).stdout
        self._parse_alternatives(relocs)

    def _parse_disassembly(self, out):
        section = key = None
        for line in out.splitlines():
            m = SECTION_RE.match(line)
            if m:
                section, key = m.group(1), None
                continue
            m = FUNC_RE.match(line)
            if m:
                key = f"{section}:{m.group(2)}"
                self.functions[key] = []
                self._starts[section].append((int(m.group(1), 16), key))
                continue
            if key is None:
                continue
            m = RELOC_RE.match(line)
            if m:
                self.functions[key].append(normalize(f"reloc {m.group(2)} {m.group(3)}"))
                continue
            m = INSN_RE.match(line)
            if not m:
                continue
            insn = m.group(2)
            self.functions[key].append(normalize(insn))
            if PREFETCH_RE.match(insn):
                if section == ".altinstr_replacement":
                    offset = int(m.group(1), 16)
                    self._repl_prefetch.add(offset)
                else:
                    self.direct[key] += 1

    def _function_at(self, section, offset):
        found = None
        for start, key in self._starts.get(section, []):
            if start <= offset:
                found = key
        return found

    def _parse_alternatives(self, relocs):
        # struct alt_instr starts with s32 instr_offset, s32 repl_offset:
        # two PC32 relocations per entry, the first to the patched text.
        entries = []
        for line in relocs.splitlines():
            m = ALT_RELOC_RE.match(line.strip())
            if m:
                entries.append((int(m.group(1), 16), m.group(3), int(m.group(4) or "0", 16)))
        by_offset = {off: (target, addend) for off, target, addend in entries}
        for off, target, addend in entries:
            repl = by_offset.get(off + 4)
            if repl is None or repl[0] != ".altinstr_replacement" or target == ".altinstr_replacement":
                continue
            # PC32 addends are -4 relative to the field; the field is the start.
            if repl[1] in self._repl_prefetch or repl[1] + 4 in self._repl_prefetch:
                key = self._function_at(target, addend)
                if key:
                    self.alt[key] += 1

    def prefetches(self, key):
        return self.direct[key] + self.alt[key]

    def code_functions(self):
        return [k for k in self.functions if not k.startswith(".altinstr_replacement:")]


def compare(a, b):
    """Functions whose code differs between a and b (and ones only in one)."""
    keys = set(a.code_functions()) | set(b.code_functions())
    return sorted(k for k in keys if a.functions.get(k) != b.functions.get(k))


def short(key):
    return key.split(":", 1)[1]


def judge(obj, code, modified):
    vanilla, default, on = code["vanilla"], code["default"], code["on"]
    problems = []
    swept = []
    for key in compare(vanilla, default):
        if key in vanilla.functions and key in default.functions and \
                vanilla.prefetches(key) > default.prefetches(key):
            swept.append(key)
        else:
            problems.append(f"{obj}: {short(key)} differs between vanilla and default "
                            f"without losing a prefetch ({vanilla.prefetches(key)} -> "
                            f"{default.prefetches(key)})")
    if swept and obj not in modified:
        problems.append(f"{obj}: the series does not modify it, yet {len(swept)} functions differ")
    gained, reshaped = [], []
    for key in compare(default, on):
        if key in on.functions and on.prefetches(key) > default.prefetches(key):
            gained.append(key)
        else:
            reshaped.append(key)
    for key in swept:
        if on.prefetches(key) < vanilla.prefetches(key):
            problems.append(f"{obj}: {short(key)} has {on.prefetches(key)} prefetches on, "
                            f"fewer than vanilla's {vanilla.prefetches(key)}")
    total = {v: sum(c.prefetches(k) for k in c.code_functions()) for v, c in code.items()}
    return {
        "object": obj,
        "modified": obj in modified,
        "functions": len(default.code_functions()),
        "swept": [short(k) for k in swept],
        "swept_prefetches": {short(k): {"vanilla": vanilla.prefetches(k), "default": default.prefetches(k),
                                        "on": on.prefetches(k)} for k in swept},
        "gained_on": len(gained),
        "reshaped_on": [short(k) for k in reshaped],
        "prefetches": total,
        "problems": problems,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("objects", nargs="+")
    parser.add_argument("--vanilla", required=True)
    parser.add_argument("--default", required=True)
    parser.add_argument("--on", required=True)
    parser.add_argument("--modified", default="")
    parser.add_argument("--objdump", default="objdump")
    parser.add_argument("--json", required=True)
    parser.add_argument("--field", action="append", default=[])
    args = parser.parse_args()

    modified = set(args.modified.split())
    dirs = {"vanilla": args.vanilla, "default": args.default, "on": args.on}
    rows = []
    for obj in args.objects:
        code = {v: ObjectCode(f"{d}/{obj}", args.objdump) for v, d in dirs.items()}
        rows.append(judge(obj, code, modified))
    problems = [p for r in rows for p in r["problems"]]
    # A series that modifies C files sweeps walks in them; one that
    # modifies none (its sweep held back) must leave default = vanilla.
    if modified and not any(r["swept"] for r in rows):
        problems.append("no function lost a prefetch from vanilla to default: the sweep shows nowhere")
    if not any(r["gained_on"] for r in rows):
        problems.append("no function gained a prefetch from default to on: list_prefetch() does nothing")

    result = dict(f.split("=", 1) for f in args.field)
    result.update({"rows": rows, "problems": problems,
                   "status": "fail" if problems else "pass"})
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2, sort_keys=True)
        f.write("\n")

    print("Code of the series' objects, function by function (objdump -d -r, addresses")
    print("made symbolic); prefetches: prefetch instructions plus x86 alternatives")
    print("that patch one in. vanilla: pristine tree; default: the series with")
    print("the architecture's default (x86_64: LIST_PREFETCH=n); on: LIST_PREFETCH=y;")
    print("gained: functions with more prefetches on than in default.")
    print(f"  {'object':<22} {'funcs':>5} {'vanilla':>7} {'default':>7} {'on':>5} "
          f"{'gained':>6}  vanilla->default differs in")
    for r in rows:
        p = r["prefetches"]
        print(f"  {r['object']:<22} {r['functions']:>5} {p['vanilla']:>7} {p['default']:>7} "
              f"{p['on']:>5} {r['gained_on']:>6}  "
              f"{', '.join(r['swept']) or '(nothing)'}{'' if r['modified'] else '  [untouched]'}")
    swept = [f"{f} {c['vanilla']}/{c['default']}/{c['on']}" for r in rows
             for f, c in r["swept_prefetches"].items()]
    if swept:
        print(f"  prefetches of the swept functions, vanilla/default/on: {', '.join(swept)}")
    reshaped = [f"{r['object']}:{f}" for r in rows for f in r["reshaped_on"]]
    if reshaped:
        print(f"  default -> on, differing without a prefetch of their own (inlining): "
              f"{', '.join(reshaped)}")
    for p in problems:
        print(f"  FAIL: {p}")
    print(f"verdict: {'pass' if not problems else 'fail'}: " +
          (("default differs from vanilla only in the swept walks" if modified else
            "default is vanilla's code in every object (the series modifies no C file)")
           + ", on only by prefetches" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
