#!/usr/bin/env python3
# The abi.libge_exports test: libge.so is built with hidden visibility and
# exports only what include/ge marks with GE_API (include/ge/export.h). An
# exported internal symbol (ge::runtime::..., ge::OpRegistry, fmt::, a C
# helper) lets programs link against code that may change any day and costs
# load time, so this fails whenever libge.so exports a symbol that is not part
# of the public C++ API: a name declared at `namespace ge` scope in
# include/ge/*.h, or a standard-library instantiation over such names.
# Usage: check_libge_exports.py LIBGE_SO INCLUDE_GE_DIR [--list] [--names]
#   --list: every exported symbol with its class; --names: the public names.
# Exit status: 0 clean, 1 internal symbols exported, 77 no nm (ctest: skipped).
import glob
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict

SHOWN = 20
# Symbols the linker and the C runtime define in every shared library.
RUNTIME_SYMBOLS = {"_init", "_fini", "__bss_start", "_edata", "_end", "__end__", "__bss_start__"}
# Namespaces whose instantiations the compiler may export next to public code.
STD_NAMESPACES = {"std", "__gnu_cxx", "__cxxabiv1"}
# What the demangler puts before the entity a symbol belongs to.
SYMBOL_PREFIXES = re.compile(r"^(typeinfo name for |typeinfo for |vtable for |VTT for |construction vtable for |"
                             r"guard variable for |TLS init function for |TLS wrapper function for |"
                             r"(?:non-)?virtual thunk to |covariant return thunk to |reference temporary #\d+ for )")
OPERATOR = re.compile(r"\boperator\s*(\(\)|\[\]|<=>|<<=|>>=|<<|>>|->\*|->|&&|\|\||\+\+|--|[-+*/%^&|~!=<>,]=?|"
                      r" new\[\]| delete\[\]| new| delete|\s+[\w:]+)")
# The first component of every qualified name in a demangled text, and the
# component after each `ge::`.
QUALIFIED_ROOT = re.compile(r"(?<![\w:])([A-Za-z_]\w*)::")
GE_MEMBER = re.compile(r"(?<![\w:])ge::(operator(?:\(\)|\[\]|[^\w\s(]+)|\w+)")
# Words of a demangled name that are not the name of a type or function.
BUILTIN_WORDS = {"void", "bool", "char", "wchar_t", "char8_t", "char16_t", "char32_t", "short", "int", "long",
                 "signed", "unsigned", "float", "double", "__int128", "__float128", "_Float16", "__bf16",
                 "const", "volatile", "__restrict", "noexcept", "decltype", "auto", "true", "false", "nullptr",
                 "operator", "new", "delete", "lambda", "parm", "unnamed", "type", "abi", "cxx11", "clone", "in"}
# An identifier that neither follows nor precedes `::`: a builtin word or a global (often C) name.
UNQUALIFIED = re.compile(r"(?<![\w:.~])([A-Za-z_]\w*)(?![\w:])")
KEYWORDS = {"const", "constexpr", "inline", "static", "extern", "noexcept", "override", "final", "virtual",
            "explicit", "friend", "typename", "template", "decltype", "sizeof", "return", "operator"}


def strip_source(text):
    """The header without comments, string and character literals and preprocessor lines."""
    token = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    text = token.sub(lambda m: '""' if m.group()[0] in "\"'" else " ", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    # Attributes and the export macro sit between a keyword and the name.
    text = re.sub(r"\[\[.*?\]\]|\bGE_API\b|\balignas\s*\([^)]*\)", " ", text)
    return re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", text)


def drop_template_args(text):
    text = re.sub(r"\boperator\s*(<<=?|<=>|<=?|>>=?|>=?|->)", "operator@", text)
    while True:
        shorter = re.sub(r"<[^<>]*>", "", text)
        if shorter == text:
            return text
        text = shorter


def declared_name(statement):
    """The name a statement at namespace scope declares, or None."""
    match = re.search(r"\boperator\s*(\(\)|\[\]|[^\w\s(]+)\s*\(", statement)
    if match:  # a free operator, named as the demangler writes it: operator<<
        return "operator" + match.group(1)
    statement = re.sub(r"^\s*template\s*<", "<", statement)
    statement = drop_template_args(statement).strip()
    match = (re.search(r"\(\s*[*&]\s*(\w+)\s*\)\s*\(", statement)  # a function pointer: void (*name)(int)
             or re.match(r"typedef\s.*?\b(\w+)\s*$", statement, re.S)
             or re.match(r"(?:class|struct|union|enum(?:\s+class|\s+struct)?)\s+(\w+)", statement)
             or re.match(r"using\s+(\w+)\s*=", statement))
    if match:
        return match.group(1)
    if not statement or re.match(r"(using|namespace|static_assert|friend)\b", statement):
        return None
    match = re.search(r"(\w+)\s*\(", statement)
    if match and match.group(1) not in KEYWORDS:  # a function (or a variable with a (...) initializer)
        return match.group(1)
    words = re.findall(r"\w+", re.split(r"[={]", statement)[0])  # a variable
    return words[-1] if words and words[-1] not in KEYWORDS else None


def public_names(include_dir):
    """Every name declared directly in `namespace ge { ... }` of the headers; nested namespaces are internal."""
    names = set()
    for path in sorted(glob.glob(os.path.join(include_dir, "*.h"))):
        with open(path, encoding="utf-8") as header:
            text = strip_source(header.read())
        for start in re.finditer(r"\bnamespace\s+ge\s*\{", text):
            depth, statement, i = 0, "", start.end()
            while i < len(text) and depth >= 0:
                char = text[i]
                if char == "{":
                    if depth == 0 and re.match(r"\s*(inline\s+)?namespace\b", statement):
                        statement = "namespace"  # its body is skipped; the name is not public
                    depth += 1
                elif char == "}":
                    depth -= 1
                    if depth == 0:  # a class or function body ends: so does its declaration
                        names.add(declared_name(statement))
                        statement = ""
                elif depth == 0:
                    if char == ";":
                        names.add(declared_name(statement))
                        statement = ""
                    else:
                        statement += char
                i += 1
    names.discard(None)
    return names


def subject(demangled):
    """The qualified name of the entity a symbol defines, without return type and parameters."""
    text = SYMBOL_PREFIXES.sub("", demangled)
    text = OPERATOR.sub("operator@", text.replace("(anonymous namespace)", "{anonymous}"))
    depth, begin = 0, 0
    for i, char in enumerate(text):
        if char == "(" and depth == 0 and not text[:i].rstrip().endswith("decltype"):
            return text[begin:i]
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == " " and depth == 0:
            begin = i + 1  # what came before was the return type
    return text[begin:]


def classify(demangled, public):
    """(class, culprit): public, std or runtime when allowed, else violation and what makes it internal."""
    name = subject(demangled)
    if name in RUNTIME_SYMBOLS:
        return "runtime", ""
    if "(anonymous namespace)" in demangled:
        return "violation", "(anonymous namespace)"
    for member in GE_MEMBER.findall(demangled):
        if member not in public:
            return "violation", "ge::" + member
    for root in QUALIFIED_ROOT.findall(demangled):
        if root != "ge" and root not in STD_NAMESPACES:
            return "violation", root + "::"
    for word in UNQUALIFIED.findall(SYMBOL_PREFIXES.sub("", demangled)):
        if word not in BUILTIN_WORDS:  # e.g. dnnl_stream in std::_Sp_counted_deleter<dnnl_stream*, ...>
            return "violation", word
    root = name.split("::")[0]
    if root == "ge":
        return "public", ""
    if root in STD_NAMESPACES or not name:  # no name: typeinfo of a builtin type such as void (*)(void*)
        return "std", ""
    if name.startswith("operator@"):  # a global operator new or delete
        return "runtime", ""
    return "violation", root + "::"


def exported_symbols(library):
    """(mangled, demangled) of each defined dynamic symbol, in symbol-table order."""
    def run_nm(*flags):
        out = subprocess.run(["nm", "-D", "--defined-only", "-p", *flags, library],
                             check=True, capture_output=True, text=True).stdout
        # "ADDRESS TYPE NAME[@VERSION]"; absolute symbols ('A') are version nodes.
        return [(line.split(" ", 2)[2].split("@")[0], line.split(" ", 2)[1])
                for line in out.splitlines() if line.count(" ") >= 2]
    mangled, demangled = run_nm(), run_nm("-C")
    return [(m, d) for (m, kind), (d, _) in zip(mangled, demangled) if kind != "A"]


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        print("usage: check_libge_exports.py LIBGE_SO INCLUDE_GE_DIR [--list] [--names]")
        return 2
    library, include_dir = args
    public = public_names(include_dir)
    if not public:
        print(f"no public names found in {include_dir}/*.h")
        return 1
    if "--names" in argv:
        print(" ".join(sorted(public)))
    if shutil.which("nm") is None:
        print("nm not found: install binutils")
        return 77  # ctest: skipped
    try:
        symbols = exported_symbols(library)
    except subprocess.CalledProcessError as error:
        print(f"nm failed on {library}: {error.stderr.strip()}")
        return 1
    counts, violations = Counter(), defaultdict(list)
    for mangled, demangled in symbols:
        kind, culprit = classify(demangled, public)
        counts[kind] += 1
        if kind == "violation":
            violations[culprit].append(demangled)
        if "--list" in argv:
            print(f"{kind:9} {demangled}    [{mangled}]")
    name = os.path.basename(library)
    if not violations:
        print(f"{name} exports {len(symbols)} symbols: {counts['public']} ge:: public API, {counts['std']} "
              f"standard-library instantiations over public types, {counts['runtime']} other allowed")
        return 0
    # Round-robin over the culprits, so that the sample shows each kind of leak.
    groups = sorted(violations.items(), key=lambda item: -len(item[1]))
    sample = [g[1][i] for i in range(SHOWN) for g in groups if i < len(g[1])][:SHOWN]
    print(f"{name} exports {counts['violation']} internal symbols (first {len(sample)} shown):")
    print("\n".join("  " + (s if len(s) <= 300 else s[:300] + " ...") for s in sample))
    summary = ", ".join(f"{culprit} {len(syms)}" for culprit, syms in groups[:12])
    more = f" and {len(groups) - 12} more" if len(groups) > 12 else ""
    print(f"by what makes them internal: {summary}{more}")
    print("To fix: if it is public C++ API, declare it in include/ge and mark the declaration GE_API; else keep\n"
          "it internal (no GE_API, no default visibility attribute, no use in a public inline function or\n"
          "template). --list prints every exported symbol with its class.")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
