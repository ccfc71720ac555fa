#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the x86 alternatives of a vmlinux that patch in a prefetch.

On i386, prefetch() and prefetchw() are alternatives: the kernel image
holds nops where the prefetch goes, and the prefetch itself sits in
.altinstr_replacement, patched in at boot only when the CPU has the
feature (X86_FEATURE_XMM for prefetchnta, X86_FEATURE_3DNOWPREFETCH for
prefetchw). objdump of the text therefore shows no prefetch in the list
iterators; this reads .altinstructions (struct alt_instr in
arch/x86/include/asm/alternative.h) to find, for each such site, the
function it is in and the CPU feature that selects it.

Prints NAME=value lines like count-prefetches.sh, and with --functions
one 'function feature mnemonic' line per site.
"""
import argparse
import collections
import struct
import subprocess
import sys

# struct alt_instr: s32 instr_offset, s32 repl_offset, u16 cpuid,
# u16 flags, u8 instrlen, u8 replacementlen; packed.
ALT_INSTR = struct.Struct("<iiHHBB")

EM_386, EM_X86_64 = 3, 62

# Feature bits named as in arch/x86/include/asm/cpufeatures.h.
FEATURES = {0 * 32 + 25: "X86_FEATURE_XMM",
            6 * 32 + 8: "X86_FEATURE_3DNOWPREFETCH"}


def prefetch_mnemonic(code):
    """The prefetch that CODE starts with, or None (Intel SDM encodings)."""
    code = code.lstrip(b"\x3e")  # a ds: prefix changes nothing here
    # A REX prefix (0x40-0x4f, x86_64 only) extends the register fields:
    # "41 0f 0d 08" is prefetchw (%r8). ModRM.reg, which selects the
    # prefetch, is the same with it or without.
    if code[:1] and 0x40 <= code[0] <= 0x4F:
        code = code[1:]
    if len(code) < 3 or code[0] != 0x0F:
        return None
    reg = (code[2] >> 3) & 7
    if code[1] == 0x18 and reg < 4:
        return ("prefetchnta", "prefetcht0", "prefetcht1", "prefetcht2")[reg]
    if code[1] == 0x0D and reg in (0, 1):
        return ("prefetch", "prefetchw")[reg]
    return None


class Elf:
    """Just enough of an ELF reader for the sections of a vmlinux."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        if self.data[:4] != b"\x7fELF":
            raise SystemExit(f"{path}: not an ELF file")
        is64 = self.data[4] == 2
        self.machine, = struct.unpack_from("<H", self.data, 0x12)
        if is64:
            shoff, = struct.unpack_from("<Q", self.data, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", self.data, 0x3A)
            header = struct.Struct("<IIQQQQIIQQ")
        else:
            shoff, = struct.unpack_from("<I", self.data, 0x20)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", self.data, 0x2E)
            header = struct.Struct("<IIIIIIIIII")
        raw = [header.unpack_from(self.data, shoff + i * shentsize)
               for i in range(shnum)]
        names = raw[shstrndx]
        self.sections = {}
        for sh in raw:
            start = names[4] + sh[0]
            name = self.data[start:self.data.index(b"\0", start)].decode()
            # sh_addr, sh_offset, sh_size
            self.sections[name] = (sh[3], sh[4], sh[5])

    def section(self, name):
        return self.sections.get(name)

    def read(self, addr, size):
        """SIZE bytes at virtual address ADDR, from whichever section holds it."""
        for vaddr, offset, length in self.sections.values():
            if vaddr <= addr and addr + size <= vaddr + length and offset:
                start = offset + addr - vaddr
                return self.data[start:start + size]
        return b""


def functions(path, nm):
    """Sorted (start, end, name) of the text symbols, from nm."""
    out = subprocess.run([nm, "-n", "-S", "--defined-only", path],
                         check=True, capture_output=True, text=True).stdout
    result = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW":
            start, size = int(fields[0], 16), int(fields[1], 16)
            result.append((start, start + size, fields[3]))
    return result


def function_at(funcs, addr):
    lo, hi = 0, len(funcs)
    while lo < hi:
        mid = (lo + hi) // 2
        if funcs[mid][0] <= addr:
            lo = mid + 1
        else:
            hi = mid
    if lo and funcs[lo - 1][0] <= addr < funcs[lo - 1][1]:
        return funcs[lo - 1][2]
    return "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vmlinux")
    parser.add_argument("--nm", default="nm")
    parser.add_argument("--functions", action="store_true",
                        help="also list every site")
    args = parser.parse_args()

    elf = Elf(args.vmlinux)
    table = elf.section(".altinstructions")
    # Other architectures lay out their alternatives differently.
    if table is None or elf.machine not in (EM_386, EM_X86_64):
        print("alt_prefetch_sites=0\nalt_prefetch_functions=0")
        return 0
    funcs = functions(args.vmlinux, args.nm)
    vaddr, offset, size = table
    sites = []
    for i in range(size // ALT_INSTR.size):
        entry_addr = vaddr + i * ALT_INSTR.size
        instr, repl, cpuid, _flags, _ilen, rlen = ALT_INSTR.unpack_from(
            elf.data, offset + i * ALT_INSTR.size)
        mnemonic = prefetch_mnemonic(elf.read(entry_addr + 4 + repl, rlen))
        if mnemonic:
            sites.append((function_at(funcs, entry_addr + instr),
                          FEATURES.get(cpuid, f"cpuid {cpuid // 32}*32+{cpuid % 32}"),
                          mnemonic))

    by_form = collections.Counter((m, f) for _, f, m in sites)
    print(f"alt_prefetch_sites={len(sites)}")
    print(f"alt_prefetch_functions={len({s[0] for s in sites})}")
    for (mnemonic, feature), n in sorted(by_form.items()):
        print(f"alt_{mnemonic}_if_{feature}={n}")
    if args.functions:
        for site in sorted(sites):
            print(" ".join(site))
    return 0


if __name__ == "__main__":
    sys.exit(main())
