#!/usr/bin/env python3
"""Draws docs/architecture.svg, the layers and folders of ge, from the source tree.

The folders of each layer and their file counts come from walking the tree;
the arrows between layers from the `#include "..."` lines of the .cc/.h/.c
files (and, for bindings/python, from the .py files that load libge_c.so with
ctypes). Only the layers, their order and their one-line descriptions are
written here. An include from a lower layer into a higher one is drawn in red
and reported on stderr.

    python3 scripts/architecture_svg.py [ROOT]                  # SVG on stdout
    python3 scripts/architecture_svg.py --output docs/architecture.svg
    python3 scripts/architecture_svg.py --check docs/architecture.svg   # exit 1 when stale
    python3 scripts/architecture_svg.py --edges                  # the dependencies as text

ROOT is the repository (default: the parent of this script's folder). The
output depends on nothing but the tree (sorted walks, no timestamps).
Standard library only.
"""

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

COMMAND = "python3 scripts/architecture_svg.py"

# The layers, bottom to top: (key, folders the layer is made of, title, description).
# A lower layer must not include a higher one; device may include passes (the CPU
# device registers its own passes). The users (tools, bindings, examples) share
# the top rank. Sub-folders are found by walking, never listed here.
LAYERS = [
    ("graph", ["lib/graph"], "lib/graph",
     "IR, op schemas, verifier, builder, .npy I/O; onnx/ importer"),
    ("passes", ["lib/passes"], "lib/passes",
     "PassManager and the built-in graph passes"),
    ("device", ["lib/device"], "lib/device",
     "Device/Stream/Allocator/Kernel interfaces; CPU and ACL backends"),
    ("runtime", ["lib/runtime"], "lib/runtime",
     "compile pipeline, memory plan, executors, Session, .gem files"),
    ("quant", ["lib/quant"], "lib/quant",
     "post-training quantization and layer-by-layer comparison"),
    ("c_api", ["lib/c_api"], "lib/c_api",
     "C ABI (libge_c.so) over the public C++ API"),
    ("tools", ["tools"], "tools",
     "the ge CLI (tools/ge) and build-time generators"),
    ("python", ["bindings/python"], "bindings/python",
     "the Python package, over libge_c.so (ctypes)"),
    ("examples", ["examples"], "examples",
     "a C++ program and a C plugin"),
]
RANK = {"graph": 0, "passes": 1, "device": 2, "runtime": 3, "quant": 4, "c_api": 5,
        "tools": 6, "python": 6, "examples": 6}
# The public headers: declared here, implemented by the lib/ layers (lib/c_api the C
# ABI, lib/runtime/plugin the host side of the plugin ABI), included by every layer.
# Drawn as a column beside the stack; it may include nothing but itself.
API = ("api", ["include/ge", "include/ge_c"], "include/ge, include/ge_c", "public C++ API: Graph, "
       "GraphBuilder, CompiledModel, Session, ImportOnnxFile, Quantize, CompareModels; C ABI; plugin ABI")

# Where sources are looked for; every folder with files under them must be in a layer.
SCANNED = ["lib", "include", "tools", "bindings/python", "examples"]
COUNTED = (".cc", ".h", ".c", ".py")
C_SOURCES = (".cc", ".h", ".c")
SKIPPED_DIRS = {"__pycache__", "build"}
INCLUDE_ROOTS = ["lib", "include"]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

# Layout (pixels); fonts are monospace, so text widths are known.
FONT = 12
CHAR_W = 7.2
LINE = 16
PAD = 8
ROW_W = 560          # width of a layer box in the stack
ROW_GAP = 22         # vertical gap between layer boxes
PORT_GAP = 18        # vertical distance between arrows at a box side
LANE_GAP = 12        # horizontal distance between arrow lanes
API_GAP = 64         # between the stack and the include/ge column
API_W = 216
MARGIN = 16
TITLE_H = 40

FILL = {"lib": "#e8f0fb", "api": "#fff6d6", "c_api": "#e6f5e6", "user": "#f0f0f0"}
STROKE = "#555555"
EDGE = "#6b6b6b"
RED = "#d62020"


class Tree:
    """The scanned files: folder -> counted files, and every include edge."""

    def __init__(self, root):
        self.root = root
        self.files = set()        # every file under SCANNED, repo-relative
        self.folder_files = {}    # folder -> number of COUNTED files in it
        self.sources = []         # C/C++ files to read includes from
        self.python = []
        for top in SCANNED:
            base = os.path.join(root, top)
            for path, dirs, names in os.walk(base):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS
                                 and not d.endswith(".egg-info"))
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                for name in sorted(names):
                    self.files.add(rel + "/" + name)
                    if name.endswith(COUNTED):
                        self.folder_files[rel] = self.folder_files.get(rel, 0) + 1
                        if name.endswith(C_SOURCES):
                            self.sources.append(rel + "/" + name)
                        else:
                            self.python.append(rel + "/" + name)
        self.by_basename = {}
        for f in sorted(self.files):
            self.by_basename.setdefault(f.rsplit("/", 1)[-1], []).append(f)

    def read(self, rel):
        with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
            return f.read()

    def resolve(self, including, name):
        """The repo-relative file that `#include "name"` in `including` means, or None."""
        folder = including.rsplit("/", 1)[0]
        for base in [folder] + INCLUDE_ROOTS:
            candidate = os.path.normpath(base + "/" + name).replace(os.sep, "/")
            if candidate in self.files:
                return candidate
        # Generated headers stand for the schema they are generated from.
        m = re.fullmatch(r"(.*?)([^/]+)\.pb\.h", name)
        if m:
            return self.resolve(including, m.group(1) + m.group(2) + ".proto")
        m = re.fullmatch(r"(?:.*/)?([^/]+)_generated\.h", name)
        if m:
            found = self.by_basename.get(m.group(1) + ".fbs", [])
            return found[0] if len(found) == 1 else None
        # An include path of its own (the ACL emulator's acl/acl.h).
        found = [f for f in self.by_basename.get(name.rsplit("/", 1)[-1], []) if f.endswith("/" + name)]
        return found[0] if len(found) == 1 else None


def layer_of(folder, layers):
    best = None
    for key, roots, _, _ in layers:
        for r in roots:
            if (folder == r or folder.startswith(r + "/")) and (best is None or len(r) > len(best[1])):
                best = (key, r)
    return best[0] if best else None


def analyse(root):
    tree = Tree(root)
    all_layers = LAYERS + [API]
    problems = []
    for folder in sorted(tree.folder_files):
        if layer_of(folder, all_layers) is None:
            problems.append(f"{folder} is in no layer: add it to LAYERS in scripts/architecture_svg.py")
    for top in ("lib", "include"):
        base = os.path.join(root, top)
        for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
            if os.path.isdir(os.path.join(base, d)) and layer_of(f"{top}/{d}", all_layers) is None:
                problems.append(f"{top}/{d} is in no layer: add it to LAYERS in scripts/architecture_svg.py")
    if problems:
        sys.exit("\n".join(sorted(set(problems))))

    folders = {key: [] for key, *_ in all_layers}
    for folder in sorted(tree.folder_files):
        folders[layer_of(folder, all_layers)].append((folder, tree.folder_files[folder]))

    edges = {}          # (src layer, dst layer) -> [count, label or None]
    folder_edges = {}   # (src folder, dst folder) -> count
    examples = {}       # (src layer, dst layer) -> first "file includes name"
    for src in tree.sources:
        src_folder = src.rsplit("/", 1)[0]
        src_layer = layer_of(src_folder, all_layers)
        for name in INCLUDE_RE.findall(tree.read(src)):
            target = tree.resolve(src, name)
            if target is None:
                continue  # a system or third-party header
            dst_folder = target.rsplit("/", 1)[0]
            dst_layer = layer_of(dst_folder, all_layers)
            if dst_layer is None:
                continue
            if dst_folder != src_folder:
                folder_edges[(src_folder, dst_folder)] = folder_edges.get((src_folder, dst_folder), 0) + 1
            if dst_layer != src_layer:
                edges.setdefault((src_layer, dst_layer), [0, None])[0] += 1
                examples.setdefault((src_layer, dst_layer), f'{src} includes "{name}"')
    # Python reaches the C ABI through ctypes, not includes.
    loaders = [p for p in tree.python if re.search(r"^\s*import ctypes", tree.read(p), re.M)
               and "libge_c.so" in tree.read(p)]
    for p in loaders:
        src_layer = layer_of(p.rsplit("/", 1)[0], all_layers)
        edge = edges.setdefault((src_layer, "c_api"), [0, "ctypes"])
        edge[0] += 1
        edge[1] = "ctypes"
        examples.setdefault((src_layer, "c_api"), f"{p} loads libge_c.so")
    return folders, edges, folder_edges, examples


def upward(src, dst):
    if src == "api":
        return dst != "api"
    if dst == "api":
        return False
    return RANK[src] < RANK[dst]


# ---------------------------------------------------------------------------- layout

def text_w(s):
    return len(s) * CHAR_W


def wrap(text, width_px):
    """Greedy word wrap to lines of at most width_px."""
    cap = int(width_px // CHAR_W)
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > cap:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


class Svg:
    def __init__(self):
        self.items = []
        self.texts = []      # (x0, y0, x1, y1, text) for the overlap check
        self.segments = []   # (x0, y0, x1, y1) straight lines of the arrows
        self.boxes = []      # (x0, y0, x1, y1)

    def rect(self, x, y, w, h, fill, stroke=STROKE, rx=6):
        self.items.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx}" '
                          f'fill="{fill}" stroke="{stroke}"/>')
        self.boxes.append((x, y, x + w, y + h))

    def text(self, x, y, s, anchor="start", bold=False, fill="#000000", size=FONT):
        w = len(s) * CHAR_W * size / FONT
        x0 = x - w if anchor == "end" else (x - w / 2 if anchor == "middle" else x)
        self.texts.append((x0, y - 0.8 * size, x0 + w, y + 0.22 * size, s))
        attrs = f' text-anchor="{anchor}"' if anchor != "start" else ""
        attrs += ' font-weight="bold"' if bold else ""
        attrs += f' fill="{fill}"' if fill != "#000000" else ""
        attrs += f' font-size="{size}"' if size != FONT else ""
        self.items.append(f'<text x="{x:g}" y="{y:g}"{attrs}>{escape(s)}</text>')

    def path(self, points, color, red):
        d = "M" + " L".join(f"{x:g},{y:g}" for x, y in points)
        marker = "arrow-red" if red else "arrow"
        width = "1.6" if red else "1.2"
        self.items.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width}" '
                          f'marker-end="url(#{marker})"/>')
        for (xa, ya), (xb, yb) in zip(points, points[1:]):
            self.segments.append((min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb)))


def check_layout(svg, width, height):
    """No two texts overlap, no arrow runs through a text, every text stays in the picture
    and, when it starts inside a box, in that box."""
    texts = svg.texts
    for i, a in enumerate(texts):
        if a[0] < 0 or a[1] < 0 or a[2] > width or a[3] > height:
            raise AssertionError(f"text outside the picture: {a[4]!r}")
        for b in texts[i + 1:]:
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                raise AssertionError(f"texts overlap: {a[4]!r} and {b[4]!r}")
        for s in svg.segments:
            if s[0] < a[2] and a[0] < s[2] and s[1] < a[3] and a[1] < s[3]:
                raise AssertionError(f"an arrow runs through the text {a[4]!r}")
        for box in svg.boxes:
            inside_start = box[0] <= a[0] <= box[2] and box[1] <= a[1] <= box[3]
            if inside_start and not (a[2] <= box[2] - 2 and a[3] <= box[3] - 2):
                raise AssertionError(f"text leaves its box: {a[4]!r}")


def render(folders, edges):
    stack = list(reversed(LAYERS))            # top to bottom
    row_of = {key: i for i, (key, *_) in enumerate(stack)}
    n = len(stack)

    # Row contents: title line (bold title + description, wrapped), then folders.
    content = {}
    text_cap = ROW_W - 2 * PAD
    for key, _, title, desc in stack:
        first = text_cap - text_w(title + "  ")
        desc_lines = wrap(desc, first)
        if len(desc_lines) > 1:   # keep the first line's remainder, wrap the rest to the full width
            rest = " ".join(desc_lines[1:])
            desc_lines = desc_lines[:1] + wrap(rest, text_cap - 2 * CHAR_W)
        content[key] = (title, desc_lines, folders[key])

    # Arrows between rows go out of and into the left side of the boxes, through lanes;
    # arrows to and from include/ge go out of the right side.
    stack_edges = sorted(((s, d) for (s, d) in edges if s != "api" and d != "api"),
                         key=lambda e: (abs(row_of[e[0]] - row_of[e[1]]), row_of[e[0]], row_of[e[1]]))
    api_edges = sorted(((s, d) for (s, d) in edges if s == "api" or d == "api"),
                       key=lambda e: (row_of.get(e[0] if e[1] == "api" else e[1]), e[0] == "api"))

    # Port order on a box's left side, top to bottom, keeps nested arrows from crossing:
    # arrows coming down (short first), arrows leaving downward (long first); arrows going
    # up are rare (they are errors) and take the ends.
    def span(e):
        return abs(row_of[e[0]] - row_of[e[1]])

    left_ports = {key: [] for key, *_ in stack}
    for key, *_ in stack:
        r = row_of[key]
        out_up = [e for e in stack_edges if e[0] == key and row_of[e[1]] < r]
        in_down = [e for e in stack_edges if e[1] == key and row_of[e[0]] < r]
        out_down = [e for e in stack_edges if e[0] == key and row_of[e[1]] > r]
        in_up = [e for e in stack_edges if e[1] == key and row_of[e[0]] > r]
        left_ports[key] = (sorted(out_up, key=span) + sorted(in_down, key=span)
                           + sorted(out_down, key=span, reverse=True) + sorted(in_up, key=span, reverse=True))
    right_ports = {key: [e for e in api_edges if key in e] for key, *_ in stack}

    # Row heights and positions.
    heights = {}
    for key, *_ in stack:
        title, desc_lines, fl = content[key]
        lines = len(desc_lines) + len(fl)
        heights[key] = max(2 * PAD + lines * LINE,
                           (len(left_ports[key]) + 1) * PORT_GAP,
                           (len(right_ports[key]) + 1) * PORT_GAP)
    tops = {}
    y = MARGIN + TITLE_H
    for key, *_ in stack:
        tops[key] = y
        y += heights[key] + ROW_GAP
    stack_bottom = y - ROW_GAP

    def port_y(key, ports, e):
        i = ports.index(e)
        first = tops[key] + (heights[key] - (len(ports) - 1) * PORT_GAP) / 2
        return round(first + i * PORT_GAP)

    # Lanes: shortest arrows nearest the boxes; arrows whose spans do not overlap share a lane.
    labels = {e: (edges[e][1] or str(edges[e][0])) for e in edges}
    label_strip = max([text_w(labels[e]) for e in stack_edges] + [text_w("00")]) + 10
    lanes = []   # per lane: list of (y0, y1)
    lane_of = {}
    for e in stack_edges:
        ya = port_y(e[0], left_ports[e[0]], e)
        yb = port_y(e[1], left_ports[e[1]], e)
        lo, hi = min(ya, yb) - 8, max(ya, yb) + 8
        for i, used in enumerate(lanes):
            if all(hi < a or lo > b for a, b in used):
                used.append((lo, hi))
                lane_of[e] = i
                break
        else:
            lanes.append([(lo, hi)])
            lane_of[e] = len(lanes) - 1
    box_x = MARGIN + len(lanes) * LANE_GAP + label_strip
    api_x = box_x + ROW_W + API_GAP
    width = round(api_x + API_W + MARGIN)

    svg = Svg()
    # Title.
    svg.text(MARGIN, MARGIN + 14, "ge: layers and folders", bold=True, size=13)
    svg.text(MARGIN, MARGIN + 30, f"generated by {COMMAND} from the source tree; do not edit")

    # Layer boxes.
    for key, *_ in stack:
        title, desc_lines, fl = content[key]
        kind = "c_api" if key == "c_api" else ("user" if RANK[key] == 6 else "lib")
        top = tops[key]
        svg.rect(box_x, top, ROW_W, heights[key], FILL[kind])
        ty = top + PAD + 12
        svg.text(box_x + PAD, ty, title, bold=True)
        for i, line in enumerate(desc_lines):
            x = box_x + PAD + text_w(title + "  ") if i == 0 else box_x + PAD + 2 * CHAR_W
            svg.text(x, ty, line, fill="#333333")
            ty += LINE
        for folder, count in fl:
            svg.text(box_x + PAD + 2 * CHAR_W, ty, folder)
            svg.text(box_x + ROW_W - PAD, ty, f"{count} file{'s' if count != 1 else ''}", anchor="end",
                     fill="#333333")
            ty += LINE

    # include/ge column.
    api_top = MARGIN + TITLE_H
    api_h = stack_bottom - api_top
    svg.rect(api_x, api_top, API_W, api_h, FILL["api"])
    _, _, api_title, api_desc = API
    ty = api_top + PAD + 12
    svg.text(api_x + PAD, ty, api_title, bold=True)
    for line in wrap(api_desc, API_W - 2 * PAD):
        ty += LINE
        svg.text(api_x + PAD, ty, line, fill="#333333")
    ty += LINE
    for folder, count in folders["api"]:
        ty += LINE
        svg.text(api_x + PAD, ty, folder)
        svg.text(api_x + API_W - PAD, ty, f"{count} files", anchor="end", fill="#333333")
    ty += LINE
    for line in wrap("Every layer includes it; the lib/ layers implement it.", API_W - 2 * PAD):
        ty += LINE
        svg.text(api_x + PAD, ty, line, fill="#333333")

    # Arrows in the stack; red ones last, on top.
    for e in sorted(stack_edges, key=lambda e: upward(*e)):
        src, dst = e
        ya = port_y(src, left_ports[src], e)
        yb = port_y(dst, left_ports[dst], e)
        lane_x = box_x - label_strip - lane_of[e] * LANE_GAP
        red = upward(src, dst)
        color = RED if red else EDGE
        svg.path([(box_x, ya), (lane_x, ya), (lane_x, yb), (box_x - 1, yb)], color, red)
        svg.text(box_x - 4, ya - 4, labels[e], anchor="end", fill=color)

    # Arrows to include/ge.
    for e in sorted(api_edges, key=lambda e: upward(*e)):
        key = e[1] if e[0] == "api" else e[0]
        yy = port_y(key, right_ports[key], e)
        red = upward(*e)
        color = RED if red else EDGE
        right = box_x + ROW_W
        points = [(right, yy), (api_x - 1, yy)] if e[1] == "api" else [(api_x, yy), (right + 1, yy)]
        svg.path(points, color, red)
        svg.text(right + API_GAP / 2, yy - 4, labels[e], anchor="middle", fill=color)

    # Legend.
    legend = [
        "An arrow goes from a layer to a layer it depends on, labelled with its number of "
        '#include "..." lines (bindings/python: .py files that load libge_c.so with ctypes). '
        "Red: a lower layer includes a higher one (order, bottom up: graph, passes, device, runtime, "
        "quant, C ABI, users). File counts: .cc, .h, .c and .py files in the folder itself."
    ]
    ty = stack_bottom + 10
    for para in legend:
        for line in wrap(para, width - 2 * MARGIN):
            ty += LINE
            svg.text(MARGIN, ty, line, fill="#333333")
    height = round(ty + MARGIN)

    check_layout(svg, width, height)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
        f'font-size="{FONT}">',
        "<!-- Generated by scripts/architecture_svg.py; do not edit. -->",
        "<defs>",
        f'<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
        f'orient="auto-start-reverse"><path d="M0,1 L10,5 L0,9 z" fill="{EDGE}"/></marker>',
        f'<marker id="arrow-red" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
        f'orient="auto-start-reverse"><path d="M0,1 L10,5 L0,9 z" fill="{RED}"/></marker>',
        "</defs>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    out += svg.items
    out.append("</svg>")
    text = "\n".join(out) + "\n"
    ET.fromstring(text)  # well-formed, or raise
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the repository (default: the parent of this script's folder)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--output", metavar="FILE", help="write the SVG to FILE (default: stdout)")
    group.add_argument("--check", metavar="FILE", help="exit 1 when FILE is not what this script writes")
    group.add_argument("--edges", action="store_true", help="print the dependencies as text instead")
    args = parser.parse_args()

    folders, edges, folder_edges, examples = analyse(args.root)
    for (src, dst), (count, _) in sorted(edges.items()):
        if upward(src, dst):
            print(f"warning: upward dependency {src} -> {dst} ({count}), e.g. {examples[(src, dst)]}",
                  file=sys.stderr)

    if args.edges:
        print("layers:")
        for (src, dst), (count, label) in sorted(edges.items(), key=lambda kv: (-kv[1][0], kv[0])):
            mark = "  UPWARD" if upward(src, dst) else ""
            print(f"  {src} -> {dst}: {count}{' (' + label + ')' if label else ''}{mark}")
        print("folders:")
        for (src, dst), count in sorted(folder_edges.items()):
            print(f"  {src} -> {dst}: {count}")
        return 0

    svg = render(folders, edges)
    if args.check:
        try:
            with open(args.check, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != svg:
            print(f"{args.check} is stale: run {COMMAND} --output {args.check}")
            return 1
        return 0
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(svg)
    else:
        sys.stdout.write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
