#!/usr/bin/env python3
"""Fails when code refers upward: a module importing one it must not depend on, or a
folder of HearthServer using a name declared in a folder above it or in a sibling front end.

The picture it enforces is docs/architecture.md's. Module edges come from Package.swift
(a target may import only what its declared dependencies reach). Folder layers are listed
below, lowest first; folders on one line are siblings and may not refer to each other.
Names are the top-level declarations of each folder (types, protocols, typealiases,
functions, extensions' new types are not names); comments and string literals are ignored.
It reads source text, so it costs nothing to build and runs in well under a second.

    python3 .ci/check-layers.py        # exit 1 and one line per violation, or exit 0
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SOURCES = os.path.join(ROOT, "Sources")

# HearthServer's folders, lowest first. A folder may use names from folders on earlier
# lines only; the folders of one line are siblings and may not use each other's names.
SERVER_LAYERS = [
    ["Model"],
    ["Codec"],
    ["Emulator"],
    ["Service"],
    ["Streams"],
    ["REST", "GRPC", "WebChannel", "Console"],
    ["Server"],
]

DECL = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|package|open|final|indirect|nonisolated)\s+)*"
    r"(?:struct|class|enum|protocol|typealias|actor|func)\s+([A-Za-z_]\w*)")
IDENT = re.compile(r"[A-Za-z_]\w*")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:struct\s+|class\s+|enum\s+|func\s+)?(\w+)", re.M)


def strip_comments_and_strings(text):
    """Blanks comments and string literals (keeping line breaks) so only code is scanned."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        out.append("\n")
                    i += 1
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text[i] == '"':
            # A one-line string; interpolations may hold code, but names in them are rare
            # enough that dropping them keeps the scan simple.
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def swift_files(folder):
    for base, _, files in os.walk(folder):
        for f in sorted(files):
            if f.endswith(".swift"):
                yield os.path.join(base, f)


def package_targets():
    """target name -> declared dependencies (names), from Package.swift."""
    text = open(os.path.join(ROOT, "Package.swift")).read()
    targets = {}
    for m in re.finditer(r"\.(?:executableTarget|target|testTarget)\(\s*name:\s*\"([^\"]+)\"(.*?)\)\s*,?\s*\n",
                         text, re.S):
        deps = re.search(r"dependencies:\s*\[(.*?)\]", m.group(2), re.S)
        names = re.findall(r"\"([^\"]+)\"", deps.group(1)) if deps else []
        targets[m.group(1)] = names
    return targets


def check_modules(errors):
    targets = package_targets()
    toolchain = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch",
                 "Synchronization", "Glibc", "Darwin", "XCTest", "Testing", "Musl", "os",
                 "PackageDescription", "_Concurrency", "Android", "WinSDK", "ucrt", "zlib"}

    def reach(name, seen):
        for d in targets.get(name, []):
            if d not in seen:
                seen.add(d)
                reach(d, seen)
        return seen

    for target in targets:
        folder = os.path.join(SOURCES, target)
        if not os.path.isdir(folder):
            continue
        allowed = reach(target, set()) | {target} | toolchain
        for path in swift_files(folder):
            for mod in IMPORT.findall(strip_comments_and_strings(open(path).read())):
                if mod not in allowed and mod in targets:
                    errors.append(f"{os.path.relpath(path, ROOT)}: imports {mod}, which {target} must not depend on")


def check_server_folders(errors):
    server = os.path.join(SOURCES, "HearthServer")
    rank, group = {}, {}
    for r, line in enumerate(SERVER_LAYERS):
        for folder in line:
            rank[folder], group[folder] = r, folder
    declared = {}          # name -> top folder
    files = []
    for path in swift_files(server):
        top = os.path.relpath(path, server).split(os.sep)[0]
        if top.endswith(".swift"):
            errors.append(f"{os.path.relpath(path, ROOT)}: lies outside every layer folder")
            continue
        if top not in rank:
            errors.append(f"Sources/HearthServer/{top}: a folder the layer list in .ci/check-layers.py does not name")
            continue
        code = strip_comments_and_strings(open(path).read())
        files.append((path, top, code))
        for line in code.split("\n"):
            m = DECL.match(line)   # top level: no indentation
            if m:
                if m.group(1) in declared and declared[m.group(1)] != top and not line.lstrip().startswith("func"):
                    errors.append(f"{os.path.relpath(path, ROOT)}: {m.group(1)} is also declared in {declared[m.group(1)]}/")
                declared.setdefault(m.group(1), top)
    for path, top, code in files:
        seen = set()
        for lineno, line in enumerate(code.split("\n"), 1):
            for name in IDENT.findall(line):
                owner = declared.get(name)
                if owner is None or owner == top or (name, owner) in seen:
                    continue
                if rank[owner] > rank[top] or (rank[owner] == rank[top] and group[owner] != group[top]):
                    seen.add((name, owner))
                    how = "a sibling" if rank[owner] == rank[top] else "a higher layer"
                    errors.append(f"{os.path.relpath(path, ROOT)}:{lineno}: uses {name} from {owner}/ ({how})")


def main():
    errors = []
    check_modules(errors)
    check_server_folders(errors)
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} upward or sideways reference(s); docs/architecture.md has the layers", file=sys.stderr)
        return 1
    print("check-layers: modules and HearthServer's folders point only downward")
    return 0


if __name__ == "__main__":
    sys.exit(main())
