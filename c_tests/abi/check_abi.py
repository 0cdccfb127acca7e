#!/usr/bin/env python3
"""ABI proof tool: compare our libblosc2 headers/library against c-blosc2's.

Parses the reference public headers (blosc2.h, b2nd.h, blosc2/*.h) with a small
comment-stripping / conditional-evaluating / tokenising front end, then lets gcc
do the real work:

  * layout.c   (compiled + run twice: -I ref, -I ours) prints sizeof/_Alignof of
               every struct, offsetof/sizeof of every field, the value (and
               type size/signedness, macro-ness) of every constant, the
               stringified expansion of alias macros, and the field-by-field
               contents of every `static const` *_DEFAULTS initialiser.
               The two outputs are diffed.
  * decls.c    (compile only, -Werror) checks, against OUR headers, every
               field's type (__builtin_types_compatible_p with the reference
               field type text), struct tags, non-struct typedefs (verbatim
               redeclaration), presence of every function-like / attribute
               macro, every static (inline) helper (pointer of the reference
               signature initialised with it) and every function prototype
               (declared?  + verbatim redeclaration of the reference
               prototype: gcc rejects conflicting types).
  * nm -D --defined-only on our library for the export checks.

Every generated check sits on its own source line(s), so gcc diagnostics are
mapped back to individual items: one run reports *all* missing names.  The
same TUs are compiled against the reference headers first; an item failing
there is a tool bug and is reported as such.

Exit status 0 only if every checked item passes.  Last line of output:
    abi: N passed, M failed
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# --------------------------------------------------------------------------
# Explicit skip lists (printed with --verbose)
# --------------------------------------------------------------------------
# Header files in the reference include dir that are not part of the blosc2 API.
SKIP_HEADERS = {"libtcc.h"}
# Macros that are platform / architecture knobs rather than API.  (Most of them
# are in inactive #if branches on Linux/gcc anyway.)
SKIP_MACROS = {
    "BLOSC_STRICT_ALIGN": "architecture-dependent knob (undefined on x86-64)",
    "__SSE2__": "compiler/arch predefined macro (MSVC shim)",
    "inline": "MSVC keyword shim",
    "getpid": "Windows-only shim",
}
# Macro names treated as undefined while evaluating the reference headers even
# if the compiler predefines them (none needed today; BLOSC_H is simply never
# defined, as the brief requires).
FORCE_UNDEFINED = {"BLOSC_H", "__cplusplus", "_WIN32", "_MSC_VER",
                   "BLOSC_SHARED_LIBRARY", "BLOSC_TESTING", "BLOSC1_COMPAT"}

CFLAGS = ["-std=gnu11", "-Werror", "-Wpointer-sign", "-Wno-deprecated-declarations", "-fmax-errors=0",
          "-fno-diagnostics-show-caret", "-fdiagnostics-plain-output"]

VERBOSE = False


def vprint(*a):
    if VERBOSE:
        print(*a)


# --------------------------------------------------------------------------
# Lexing helpers
# --------------------------------------------------------------------------
TOKEN_RE = re.compile(r'''
   (?P<ws>\s+)
 | (?P<str>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*")
 | (?P<chr>(?:[uUL])?'(?:\\.|[^'\\\n])*')
 | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*)
 | (?P<id>[A-Za-z_][A-Za-z_0-9]*)
 | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|.)
''', re.X | re.S)

C_KEYWORDS = set("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while _Bool _Complex _Alignas _Alignof
_Atomic _Noreturn _Static_assert _Thread_local bool __attribute__ __inline __restrict
__extension__""".split())
QUALIFIERS = {"const", "volatile", "restrict", "__restrict"}


class Tok:
    __slots__ = ("kind", "text", "file")

    def __init__(self, kind, text, file):
        self.kind, self.text, self.file = kind, text, file

    def __repr__(self):
        return self.text


def tokenize(text, file=None):
    out = []
    for m in TOKEN_RE.finditer(text):
        k = m.lastgroup
        if k == "ws":
            continue
        out.append(Tok(k, m.group(), file))
    return out


def join_tokens(toks):
    return " ".join(t.text for t in toks)


def strip_comments(text):
    """Remove /* */ and // comments (string/char literal aware). Block comments
    keep their newlines so line structure is preserved."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n":
                    break
                j += 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" ")
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


# --------------------------------------------------------------------------
# Tiny preprocessor: conditionals, #define/#undef tracking, quoted #includes.
# --------------------------------------------------------------------------
class Macro:
    def __init__(self, name, params, body, file, guard=False):
        self.name, self.params, self.body, self.file, self.guard = name, params, body, file, guard


def gcc_predefined(cc):
    try:
        out = subprocess.run([cc, "-dM", "-E", "-x", "c", "/dev/null"], capture_output=True,
                             text=True, check=True).stdout
    except Exception:
        return {}
    d = {}
    for line in out.splitlines():
        m = re.match(r"#define\s+(\w+)(?:\s+(.*))?$", line)
        if m:
            d[m.group(1)] = (m.group(2) or "").strip()
    return d


class Preprocessor:
    def __init__(self, root, predefined, extra_defines=()):
        self.root = root
        self.predef = {k: v for k, v in predefined.items() if k not in FORCE_UNDEFINED}
        self.macros = {}          # name -> Macro (header macros, final state)
        self.order = []           # macro names in definition order
        self.code = []            # list of (file, text) active non-directive code
        self.done = set()
        self.includes = {}        # relpath -> set of relpaths it #includes (quoted, in ref dir)
        self.warnings = []
        self.guards = set()
        for d in extra_defines:
            self.macros[d] = Macro(d, None, "1", "<cmdline>")

    # ---- #if evaluation
    def _value_of(self, name, depth=0):
        if name in self.macros and self.macros[name].params is None:
            body = self.macros[name].body
        elif name in self.predef:
            body = self.predef[name]
        else:
            return "0"
        if depth > 20:
            return "0"
        toks = tokenize(body)
        return " ".join(self._value_of(t.text, depth + 1) if t.kind == "id" else t.text
                        for t in toks) or "0"

    def is_defined(self, name):
        return name in self.macros or name in self.predef

    def eval_if(self, expr, where):
        toks = tokenize(expr)
        parts = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.text == "defined":
                if i + 1 < len(toks) and toks[i + 1].text == "(":
                    name = toks[i + 2].text
                    i += 4
                else:
                    name = toks[i + 1].text
                    i += 2
                parts.append("1" if self.is_defined(name) else "0")
                continue
            if t.kind == "id":
                parts.append("(" + self._value_of(t.text) + ")")
            else:
                parts.append(t.text)
            i += 1
        py = " ".join(parts)
        py = re.sub(r"(?<=\d)[uUlL]+\b", "", py)
        py = py.replace("&&", " and ").replace("||", " or ")
        py = re.sub(r"!(?!=)", " not ", py)
        py = py.replace("/", "//")
        try:
            return bool(eval(py, {"__builtins__": {}}, {}))
        except Exception as e:  # pragma: no cover - defensive
            self.warnings.append(f"{where}: cannot evaluate #if {expr!r} ({e}); assuming false")
            return False

    # ---- file processing
    def process(self, relpath):
        path = os.path.join(self.root, relpath)
        if relpath in self.done:
            return
        self.done.add(relpath)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        text = strip_comments(text.replace("\\\r\n", "").replace("\\\n", ""))
        lines = text.split("\n")
        stack = []            # (parent_active, taken, active)
        active = True
        ndirectives = 0
        first_ifndef = None
        for lineno, line in enumerate(lines, 1):
            m = re.match(r"\s*#\s*(\w*)(.*)$", line)
            where = f"{relpath}:{lineno}"
            if not m:
                if active:
                    self.code.append((relpath, line))
                continue
            d, rest = m.group(1), m.group(2).strip()
            if not d:
                continue
            ndirectives += 1
            if d in ("if", "ifdef", "ifndef"):
                if d == "ifdef":
                    cond = self.is_defined(rest.split()[0])
                elif d == "ifndef":
                    cond = not self.is_defined(rest.split()[0])
                    if ndirectives == 1:
                        first_ifndef = rest.split()[0]
                else:
                    cond = self.eval_if(rest, where) if active else False
                stack.append((active, cond and active, active and cond))
                active = active and cond
                continue
            if d == "elif":
                parent, taken, _ = stack.pop()
                cond = (not taken) and parent and self.eval_if(rest, where)
                stack.append((parent, taken or cond, cond))
                active = cond
                continue
            if d == "else":
                parent, taken, _ = stack.pop()
                stack.append((parent, True, parent and not taken))
                active = parent and not taken
                continue
            if d == "endif":
                active = stack.pop()[0]
                continue
            if not active:
                continue
            if d == "define":
                mm = re.match(r"(\w+)(\([^)]*\))?\s*(.*)$", rest)
                name, params, body = mm.group(1), mm.group(2), mm.group(3).strip()
                guard = (ndirectives == 2 and first_ifndef == name and not body and params is None)
                if guard:
                    self.guards.add(name)
                if name not in self.macros:
                    self.order.append(name)
                else:
                    self.order.remove(name)
                    self.order.append(name)
                self.macros[name] = Macro(name, params, body, relpath, guard)
            elif d == "undef":
                self.macros.pop(rest.split()[0], None)
            elif d == "include":
                mm = re.match(r'"([^"]+)"', rest)
                if mm:
                    inc = mm.group(1)
                    for cand in (os.path.join(os.path.dirname(relpath), inc), inc):
                        cand = os.path.normpath(cand)
                        if os.path.isfile(os.path.join(self.root, cand)):
                            self.includes.setdefault(relpath, set()).add(cand)
                            self.process(cand)
                            break
                    else:
                        self.warnings.append(f"{where}: cannot find include {inc!r}")
            # pragma / error / line: ignored
        if stack:
            self.warnings.append(f"{relpath}: unbalanced conditionals")


# --------------------------------------------------------------------------
# Declaration parsing
# --------------------------------------------------------------------------
def split_top_level(tokens):
    """Split a token stream into top-level declarations. Function bodies are
    kept as ('funcdef', header_tokens, body_tokens)."""
    decls = []
    cur = []
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        if t.text == ";":
            if cur:
                decls.append(("decl", cur))
            cur = []
            i += 1
            continue
        if t.text == "{":
            # find matching brace
            depth, j = 0, i
            while j < n:
                if tokens[j].text == "{":
                    depth += 1
                elif tokens[j].text == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            body = tokens[i:j + 1]
            is_func = (cur and cur[-1].text == ")" and cur[0].text not in ("typedef", "struct", "union", "enum")
                       and not any(x.text == "=" for x in cur))
            if is_func:
                decls.append(("funcdef", cur, body))
                cur = []
            else:
                cur.extend(body)
            i = j + 1
            continue
        cur.append(t)
        i += 1
    if cur:
        decls.append(("trailing", cur))
    return decls


def matching(tokens, i, open_="(", close=")"):
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].text == open_:
            depth += 1
        elif tokens[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced")


def declarator_name_index(toks):
    """Index of the declared identifier in a declaration (field / typedef)."""
    for i in range(len(toks) - 1):
        if toks[i].text == "(" and toks[i + 1].text == "*":
            j = i + 2
            while j < len(toks) and toks[j].text in QUALIFIERS | {"*"}:
                j += 1
            if j < len(toks) and toks[j].kind == "id":
                return j
    depth = 0
    last = None
    for i, t in enumerate(toks):
        if t.text in ("(",):
            depth += 1
        elif t.text == ")":
            depth -= 1
        elif depth == 0 and t.text in ("[", "=", ":"):
            break
        elif depth == 0 and t.kind == "id" and t.text not in C_KEYWORDS:
            last = i
    return last


class Field:
    def __init__(self, name, typetext, is_ptr, is_array, is_str):
        self.name, self.typetext, self.is_ptr, self.is_array, self.is_str = \
            name, typetext, is_ptr, is_array, is_str


class Struct:
    def __init__(self, cname, tag, typedef, fields, file):
        self.cname, self.tag, self.typedef, self.fields, self.file = cname, tag, typedef, fields, file


class Header:
    """Everything extracted from the reference headers."""

    def __init__(self):
        self.constants = {}      # name -> dict(kind int|str, origin enum|macro, file)
        self.presence = {}       # name -> dict(kind, body, file)  macros checked for presence
        self.aliases = {}        # name -> (target, file)        identifier-alias macros
        self.skipped = []        # (name, reason)
        self.structs = []        # Struct
        self.typedefs = {}       # name -> dict(text, file, opaque, ptr)
        self.defaults = []       # (name, struct cname, file)
        self.functions = {}      # name -> dict(proto, exported, file)
        self.inlines = {}        # name -> dict(ret, params, file)
        self.unparsed = []
        self.files = []


def parse_fields(body_toks, ptr_typedefs, file):
    """body_toks excludes the outer braces."""
    fields = []
    cur = []
    depth = 0
    for t in body_toks:
        if t.text in "([{":
            depth += 1
        elif t.text in ")]}":
            depth -= 1
        if t.text == ";" and depth == 0:
            if cur:
                fields.append(cur)
            cur = []
        else:
            cur.append(t)
    out = []
    for ft in fields:
        if any(t.text == "{" for t in ft):
            raise ValueError(f"{file}: nested struct/union definitions are not supported: {join_tokens(ft)}")
        depth = 0
        for t in ft:
            depth += t.text in "(["
            depth -= t.text in ")]"
            if depth == 0 and t.text == ",":
                raise ValueError(f"{file}: multi-declarator fields not supported: {join_tokens(ft)}")
        idx = declarator_name_index(ft)
        name = ft[idx].text
        rest = ft[:idx] + ft[idx + 1:]
        typetext = join_tokens(rest)
        fptr = any(ft[i].text == "(" and ft[i + 1].text == "*" for i in range(len(ft) - 1))
        pre = [t.text for t in ft[:idx]]
        post = [t.text for t in ft[idx + 1:]]
        is_array = bool(post) and post[0] == "["
        base_ptr = any(t in ptr_typedefs for t in pre)
        is_ptr = fptr or "*" in pre or base_ptr
        basic = [t for t in pre if t not in QUALIFIERS]
        is_str = (not fptr and not is_array and basic in (["char", "*"],))
        out.append(Field(name, typetext, is_ptr, is_array, is_str))
    return out


def classify_macro_body(body, known_int, predef):
    toks = tokenize(body)
    if not toks:
        return "empty"
    if all(t.kind == "str" for t in toks):
        return "str"
    ok_punct = set("+ - * / % << >> ( ) ~ & | ^ < > <= >= == != && || ! ? :".split())
    for t in toks:
        if t.kind == "num":
            if not re.fullmatch(r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*", t.text):
                return "other"
        elif t.kind == "id":
            if t.text not in known_int and t.text not in predef:
                return "alias" if len(toks) == 1 else "other"
        elif t.kind == "punct":
            if t.text not in ok_punct:
                return "other"
        else:
            return "other"
    return "int"


def parse_reference(ref_root, predef, extra_defines=()):
    hdr = Header()
    pp = Preprocessor(ref_root, predef, extra_defines)
    files = []
    for top in ("blosc2.h", "b2nd.h"):
        if os.path.isfile(os.path.join(ref_root, top)):
            files.append(top)
    for dirpath, _, names in sorted(os.walk(ref_root)):
        for nm_ in sorted(names):
            if not nm_.endswith(".h"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, nm_), ref_root)
            if rel in SKIP_HEADERS or rel in files:
                continue
            files.append(rel)
    hdr.files = files
    for f in files:
        pp.process(f)
    hdr.pp = pp

    # tokens with file attribution
    tokens = []
    for f, line in pp.code:
        tokens.extend(tokenize(line, f))

    # known function-like macros & attribute-ish object macros to strip from declarations
    funclike = {n for n, m in pp.macros.items() if m.params is not None}
    attr_like = {n for n, m in pp.macros.items() if m.params is None and
                 (m.body == "" or "__attribute__" in m.body or "__declspec" in m.body)}

    def strip_attrs(toks):
        out = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.text in funclike and i + 1 < len(toks) and toks[i + 1].text == "(":
                i = matching(toks, i + 1) + 1
                continue
            if t.text in attr_like or t.text == "__attribute__":
                if t.text == "__attribute__":
                    i = matching(toks, i + 1) + 1
                    continue
                i += 1
                continue
            out.append(t)
            i += 1
        return out

    enum_members = []

    def handle_enum_body(body, file):
        inner = body[1:-1]
        cur = []
        depth = 0
        items = []
        for t in inner:
            depth += t.text in "(["
            depth -= t.text in ")]"
            if t.text == "," and depth == 0:
                items.append(cur)
                cur = []
            else:
                cur.append(t)
        items.append(cur)
        for it in items:
            if not it:
                continue
            name = it[0].text
            enum_members.append(name)
            hdr.constants[name] = dict(kind="int", origin="enum", file=file)

    ptr_typedefs = set()
    for kind, *parts in split_top_level(tokens):
        toks = parts[0]
        file = toks[0].file
        if kind == "funcdef":
            head = strip_attrs(toks)
            txt = [t.text for t in head]
            if "static" in txt:
                p = next(i for i, t in enumerate(head) if t.text == "(")
                name = head[p - 1].text
                ret = join_tokens([t for t in head[:p - 1] if t.text not in ("static", "inline", "__inline")])
                params = join_tokens(head[p + 1:matching(head, p)])
                hdr.inlines[name] = dict(ret=ret, params=params, file=file)
            else:
                hdr.unparsed.append(join_tokens(head))
            continue
        if kind == "trailing":
            hdr.unparsed.append(join_tokens(toks))
            continue
        toks = strip_attrs(toks)
        if not toks:
            continue
        txt = [t.text for t in toks]
        if txt[0] == "typedef":
            if txt[1] in ("struct", "union") and "{" in txt:
                b0 = txt.index("{")
                b1 = matching(toks, b0, "{", "}")
                tag = txt[2] if b0 == 3 else None
                name = txt[b1 + 1]
                fields = parse_fields(toks[b0 + 1:b1], ptr_typedefs, file)
                hdr.structs.append(Struct(name, tag, name, fields, file))
            elif txt[1] == "enum" and "{" in txt:
                b0 = txt.index("{")
                b1 = matching(toks, b0, "{", "}")
                handle_enum_body(toks[b0:b1 + 1], file)
                hdr.typedefs[txt[b1 + 1]] = dict(text=join_tokens(toks), file=file, opaque=False, ptr=False)
            else:
                idx = declarator_name_index(toks)
                name = txt[idx]
                is_ptr = "*" in txt[:idx] or any(txt[i] == "(" and txt[i + 1] == "*" for i in range(len(txt) - 1))
                if is_ptr:
                    ptr_typedefs.add(name)
                opaque = txt[1] in ("struct", "union") and len(txt) == 4
                hdr.typedefs[name] = dict(text=join_tokens(toks), file=file, opaque=opaque, ptr=is_ptr)
            continue
        if txt[0] in ("struct", "union") and len(txt) > 2 and txt[2] == "{":
            b1 = matching(toks, 2, "{", "}")
            fields = parse_fields(toks[3:b1], ptr_typedefs, file)
            hdr.structs.append(Struct(f"{txt[0]} {txt[1]}", txt[1], None, fields, file))
            continue
        if txt[0] == "enum" and "{" in txt:
            b0 = txt.index("{")
            handle_enum_body(toks[b0:matching(toks, b0, "{", "}") + 1], file)
            continue
        if txt[0] == "static" and "=" in txt and "(" not in txt[:txt.index("=")]:
            eq = txt.index("=")
            name = txt[eq - 1]
            ctype = join_tokens([t for t in toks[1:eq - 1] if t.text not in QUALIFIERS])
            hdr.defaults.append((name, ctype, file))
            continue
        if "(" in txt:
            p = txt.index("(")
            name = txt[p - 1]
            if "static" in txt[:p]:
                ret = join_tokens([t for t in toks[:p - 1] if t.text not in ("static", "inline", "__inline")])
                params = join_tokens(toks[p + 1:matching(toks, p)])
                hdr.inlines.setdefault(name, dict(ret=ret, params=params, file=file))
                continue
            exported = "BLOSC_EXPORT" in [t.text for t in parts[0]]
            hdr.functions[name] = dict(proto=join_tokens(toks) + ";", exported=exported, file=file)
            continue
        hdr.unparsed.append(join_tokens(toks))

    # macros
    known_int = set(enum_members)
    # fixpoint: a macro may refer to an integer macro defined later (BLOSC1_COMPAT block)
    changed = True
    while changed:
        changed = False
        for name, m in pp.macros.items():
            if (m.params is None and name not in known_int and m.file != "<cmdline>"
                    and classify_macro_body(m.body, known_int, pp.predef) == "int"):
                known_int.add(name)
                changed = True
    for name in pp.order:
        m = pp.macros.get(name)
        if m is None or m.file == "<cmdline>":
            continue
        if name in SKIP_MACROS:
            hdr.skipped.append((name, "explicit skip list: " + SKIP_MACROS[name]))
            continue
        if m.guard:
            hdr.skipped.append((name, "include guard"))
            continue
        if m.params is not None:
            hdr.presence[name] = dict(kind="function-like", body=m.body, file=m.file)
            hdr.skipped.append((name, "function-like macro (presence checked only)"))
            continue
        cls = classify_macro_body(m.body, known_int, pp.predef)
        if cls == "int":
            known_int.add(name)
            hdr.constants[name] = dict(kind="int", origin="macro", file=m.file)
        elif cls == "str":
            hdr.constants[name] = dict(kind="str", origin="macro", file=m.file)
        elif cls == "alias":
            hdr.aliases[name] = (m.body, m.file)
        else:
            hdr.presence[name] = dict(kind=cls, body=m.body, file=m.file)
            hdr.skipped.append((name, f"{cls} expansion {m.body!r} (presence checked only)"))
    return hdr


# --------------------------------------------------------------------------
# Items & code generation
# --------------------------------------------------------------------------
class Item:
    """One checked thing. `code` is a list of source lines (no newlines)."""

    def __init__(self, iid, category, code, desc=None, parent=None):
        self.iid, self.category, self.code, self.desc = iid, category, code, desc or iid
        self.parent = parent   # iid of the struct item this one depends on (report folding)


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_layout_items(hdr, compat_only=None):
    items = []
    pre = []   # preamble lines (macro flags)
    if compat_only is None:
        for s in hdr.structs:
            T = s.cname
            items.append(Item(f"S:{T}", "struct", [
                f'printf("%s\\t%zu %zu\\n", {cstr("S:" + T)}, sizeof({T}), (size_t)_Alignof({T}));'],
                f"sizeof/_Alignof({T})"))
            for f in s.fields:
                items.append(Item(f"F:{T}.{f.name}", "field", [
                    f'printf("%s\\toffset=%zu size=%zu\\n", {cstr("F:" + T + "." + f.name)}, '
                    f'offsetof({T}, {f.name}), sizeof((({T} *)0)->{f.name}));'],
                    f"offsetof/sizeof {T}.{f.name}", parent=f"S:{T}"))
        by_name = {s.cname: s for s in hdr.structs}
        for name, ctype, _ in hdr.defaults:
            s = by_name.get(ctype)
            if s is None:
                items.append(Item(f"D:{name}", "default", [
                    f'{{ const {ctype} *d = &{name}; abi_hex({cstr("D:" + name)}, d, sizeof *d); }}']))
                continue
            for f in s.fields:
                k = cstr(f"D:{name}.{f.name}")
                acc = f"d->{f.name}"
                if f.is_ptr and f.is_array:
                    body = (f"for (size_t i = 0; i < sizeof {acc} / sizeof {acc}[0]; i++) "
                            f"abi_flagi({k}, i, {acc}[i] != 0);")
                elif f.is_str:
                    body = f"abi_str({k}, {acc});"
                elif f.is_ptr:
                    body = f"abi_flag({k}, {acc} != 0);"
                else:
                    body = f"abi_hex({k}, &{acc}, sizeof {acc});"
                items.append(Item(f"D:{name}.{f.name}", "default", [
                    f"{{ const {ctype} *d = &{name}; {body} }}"], f"{name}.{f.name}", parent=f"S:{ctype}"))
    consts = hdr.constants if compat_only is None else {k: v for k, v in hdr.constants.items() if k in compat_only}
    for n, (name, c) in enumerate(sorted(consts.items())):
        pre += [f"#ifdef {name}", f"#define ABI_ISMAC_{n} 1", "#else", f"#define ABI_ISMAC_{n} 0", "#endif"]
        k = cstr("C:" + name)
        if c["kind"] == "int":
            code = (f'{{ long long v = ({name}); printf("%s\\t%lld size=%zu signed=%d\\n", {k}, v, '
                    f'sizeof({name}), (int)((({name}) * 0 - 1) < 0)); '
                    f'printf("%s|macro\\t%d\\n", {k}, ABI_ISMAC_{n}); }}')
        else:
            code = (f'{{ const char *s = {name}; printf("%s\\t\\"%s\\" size=%zu\\n", {k}, s, sizeof({name})); '
                    f'printf("%s|macro\\t%d\\n", {k}, ABI_ISMAC_{n}); }}')
        items.append(Item(f"C:{name}", "constant", [code], name))
    aliases = hdr.aliases if compat_only is None else {k: v for k, v in hdr.aliases.items() if k in compat_only}
    for name in sorted(aliases):
        items.append(Item(f"A:{name}", "alias-macro", [
            f'#ifndef {name}', f'#error missing macro {name}', '#endif',
            f'printf("%s\\t%s\\n", {cstr("A:" + name)}, ABI_STR({name}));'], name))
    return pre, items


LAYOUT_PROLOGUE = r'''
#define ABI_STR_(x) #x
#define ABI_STR(x) ABI_STR_(x)
static void abi_hex(const char *k, const void *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p; printf("%s\t", k);
  for (size_t i = 0; i < n; i++) printf("%02x", c[i]); printf("\n"); }
static void abi_flag(const char *k, int nonnull) { printf("%s\t%s\n", k, nonnull ? "non-null" : "null"); }
static void abi_flagi(const char *k, size_t i, int nonnull) { printf("%s|%zu\t%s\n", k, i, nonnull ? "non-null" : "null"); }
static void abi_str(const char *k, const char *s) { if (s) printf("%s\t\"%s\"\n", k, s); else printf("%s\tnull\n", k); }
'''


def build_decl_items(hdr, symbols):
    items = []
    for s in hdr.structs:
        T = s.cname
        for f in s.fields:
            items.append(Item(f"T:{T}.{f.name}", "field-type", [
                f'_Static_assert(__builtin_types_compatible_p(__typeof__((({T} *)0)->{f.name}), {f.typetext}), '
                f'"type of {T}.{f.name} differs from reference: {f.typetext.replace(chr(34), "")}");'],
                f"type of {T}.{f.name} == {f.typetext}", parent=f"S:{T}"))
        if s.tag and s.typedef:
            items.append(Item(f"G:{s.typedef}", "struct-tag", [
                f'_Static_assert(__builtin_types_compatible_p(struct {s.tag}, {s.typedef}), '
                f'"{s.typedef} is not struct {s.tag}");'], f"{s.typedef} == struct {s.tag}"))
    for n, (name, td) in enumerate(sorted(hdr.typedefs.items())):
        redecl = "" if "{" in td["text"] else f" {td['text']};"
        items.append(Item(f"Y:{name}", "typedef", [
            f"enum {{ abi_td_{n} = sizeof({name} *) }};{redecl}"], td["text"]))
    for name, p in sorted(hdr.presence.items()):
        items.append(Item(f"M:{name}", "macro", [
            f"#ifndef {name}", f"#error missing macro {name}", "#endif"], f"macro {name} defined"))
    for n, (name, fn) in enumerate(sorted(hdr.inlines.items())):
        items.append(Item(f"I:{name}", "inline", [
            f"static void __attribute__((unused)) abi_inline_{n}(void) {{ "
            f"{fn['ret']} (*p)({fn['params']}) = {name}; (void)p; }}"],
            f"static {fn['ret']} {name}({fn['params']})"))
    for n, name in enumerate(symbols):
        fn = hdr.functions.get(name)
        if fn is None:
            continue
        items.append(Item(f"FD:{name}", "fn-declared", [
            f"enum {{ abi_fd_{n} = sizeof(&{name}) }};"], f"{name} declared"))
    for name in symbols:
        fn = hdr.functions.get(name)
        if fn is None:
            continue
        proto = fn["proto"]
        items.append(Item(f"FS:{name}", "fn-signature", [proto], proto))
    return items


def include_lines(headers, defines=()):
    out = [f"#define {d} 1" for d in defines]
    out += ["#include <stdio.h>", "#include <stddef.h>", "#include <string.h>"]
    out += [f'#include "{h}"' for h in headers]
    return out


def assemble(prologue_lines, items):
    """Return (source text, {line number -> item id})."""
    lines = list(prologue_lines)
    linemap = {}
    for it in items:
        for c in it.code:
            lines.append(c)
            linemap[len(lines)] = it.iid
    return "\n".join(lines) + "\n", linemap


DIAG_RE = re.compile(r"^(.*?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$")


def run(cmd, cwd=None, timeout=120):
    env = dict(os.environ, LC_ALL="C", LANG="C")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def parse_diags(stderr, srcpath, linemap):
    """-> (per-item {iid: [messages]}, [unattributed messages])"""
    per, other = {}, []
    src_base = os.path.basename(srcpath)
    last_iid = None
    for line in stderr.splitlines():
        m = DIAG_RE.match(line)
        if not m:
            continue
        f, ln, sev, msg = m.group(1), int(m.group(2)), m.group(4), m.group(5)
        is_src = os.path.basename(f) == src_base
        if sev == "note":
            if last_iid is not None and not is_src:
                text = ""
                try:
                    with open(f, errors="replace") as fh:
                        flines = fh.read().splitlines()
                    parts = []
                    for l in flines[ln - 1:ln + 8]:
                        parts.append(l.split("//")[0].strip())
                        if ";" in l or "{" in l:
                            break
                    text = " ".join(parts)
                except Exception:
                    pass
                if "previous" in msg and text:
                    per[last_iid].append(f"ours ({os.path.basename(f)}:{ln}): {text}")
            continue
        last_iid = None
        if is_src and ln in linemap:
            iid = linemap[ln]
            per.setdefault(iid, []).append(msg)
            last_iid = iid
        else:
            other.append(f"{f}:{ln}: {sev}: {msg}")
    return per, other


def compile_c(cc, src_text, path, incdir, link=False, timeout=120, extra=()):
    with open(path, "w") as f:
        f.write(src_text)
    out = path[:-2] + (".bin" if link else ".o")
    # -O1 so that unused static (non-inline) header functions such as
    # print_error() are dropped instead of needing the library at link time.
    cmd = [cc] + CFLAGS + list(extra) + ["-O1" if link else "-c", "-I", incdir, path, "-o", out]
    rc, so, se = run(cmd, timeout=timeout)
    return rc, se, out


# --------------------------------------------------------------------------
# Running a variant (ref or ours)
# --------------------------------------------------------------------------
def run_layout(cc, workdir, tag, incdir, headers, defines, pre, items):
    """Compile (dropping items that fail), run. -> (values {key: val}, failed {iid: msgs}, header_errs)"""
    failed = {}
    header_errs = []
    active = list(items)
    binpath = None
    extra = []
    for attempt in range(10):
        src, linemap = assemble(include_lines(headers, defines) + pre + LAYOUT_PROLOGUE.split("\n") +
                                ["int main(void) {"], active)
        src += "return 0; }\n"
        path = os.path.join(workdir, f"layout_{tag}.c")
        rc, se, binpath = compile_c(cc, src, path, incdir, link=True, extra=extra)
        if rc == 0:
            break
        per, other = parse_diags(se, path, linemap)
        # diagnostics inside the headers that are only errors because of -Werror:
        # demote them (the header-compile item reports them) and retry.
        werr = set(re.findall(r"\[-Werror=([\w-]+)\]", "\n".join(other)))
        if other and werr and all("[-Werror=" in o for o in other if ": error:" in o):
            new = [f"-Wno-error={w}" for w in sorted(werr) if f"-Wno-error={w}" not in extra]
            if new:
                extra += new
                header_errs.extend(o for o in other if o not in header_errs)
                continue
        # link errors: undefined reference to `X'
        undef = set(re.findall(r"undefined reference to [`']([^'`]+)'", se))
        if undef:
            for it in active:
                for u in undef:
                    if re.search(r"\b%s\b" % re.escape(u), " ".join(it.code)):
                        per.setdefault(it.iid, []).append(f"undefined reference to {u} (not a header-only definition)")
        if not per:
            header_errs = other or [se.strip()[-2000:]]
            for it in active:
                failed[it.iid] = ["not checked: generated program does not compile (header errors)"]
            return {}, failed, header_errs
        if other:
            header_errs.extend(o for o in other if o not in header_errs)
        for iid, msgs in per.items():
            failed[iid] = msgs
        active = [it for it in active if it.iid not in failed]
    else:
        for it in active:
            failed[it.iid] = ["not checked: could not get a compiling program"]
        return {}, failed, header_errs
    rc, so, se = run([binpath], timeout=60)
    vals = {}
    for line in so.splitlines():
        if "\t" in line:
            k, v = line.split("\t", 1)
            vals[k] = v
    if rc != 0:
        header_errs.append(f"layout program exited with {rc}: {se.strip()[:500]}")
    return vals, failed, header_errs


def run_decls(cc, workdir, tag, incdir, headers, items):
    src, linemap = assemble(include_lines(headers), items)
    path = os.path.join(workdir, f"decls_{tag}.c")
    rc, se, _ = compile_c(cc, src, path, incdir)
    if rc == 0:
        return {}, []
    per, other = parse_diags(se, path, linemap)
    if not per:
        return {it.iid: ["not checked: generated TU does not compile (header errors)"] for it in items}, other
    return per, other


def reachable(pp, h):
    seen, todo = set(), [h]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        todo.extend(pp.includes.get(x, ()))
    return seen


def build_standalone_tus(hdr):
    """For each header: a TU including only that header and touching every
    name the reference makes available through it."""
    tus = {}
    for h in hdr.files:
        files = reachable(hdr.pp, h)
        lines = []
        for name, c in sorted(hdr.constants.items()):
            if c["file"] in files:
                lines.append((name, f"enum {{ abi_c_{len(lines)} = sizeof({name}) }};"))
        for st in hdr.structs:
            if st.file in files:
                lines.append((st.cname, f"enum {{ abi_s_{len(lines)} = sizeof({st.cname}) }};"))
        for name, td in sorted(hdr.typedefs.items()):
            if td["file"] in files:
                lines.append((name, f"enum {{ abi_t_{len(lines)} = sizeof({name} *) }};"))
        for name, fn in sorted(hdr.functions.items()):
            if fn["file"] in files:
                lines.append((name, f"enum {{ abi_f_{len(lines)} = sizeof(&{name}) }};"))
        for name, fn in sorted(hdr.inlines.items()):
            if fn["file"] in files:
                lines.append((name, f"enum {{ abi_i_{len(lines)} = sizeof(&{name}) }};"))
        for name, p in sorted(hdr.presence.items()):
            if p["file"] in files:
                lines.append((name, f"#ifndef {name}\n#error missing macro {name}\n#endif"))
        tus[h] = lines
    return tus


def run_standalone(cc, workdir, incdir, h, lines):
    if not os.path.isfile(os.path.join(incdir, h)):
        return None
    src = [f'#include "{h}"']
    linemap = {}
    for name, code in lines:
        for c in code.split("\n"):
            src.append(c)
            linemap[len(src)] = name
    path = os.path.join(workdir, "alone_" + re.sub(r"\W", "_", h) + ".c")
    rc, se, _ = compile_c(cc, "\n".join(src) + "\n", path, incdir)
    if rc == 0:
        return []
    per, other = parse_diags(se, path, linemap)
    return sorted(per) + [o for o in other if ": error:" in o][:3]


def run_header_selfcheck(cc, workdir, tag, incdir, headers):
    """Our headers alone must compile with the same strict flags (the
    reference headers do)."""
    path = os.path.join(workdir, f"headers_{tag}.c")
    rc, se, _ = compile_c(cc, "\n".join(include_lines(headers)) + "\nint abi_dummy;\n", path, incdir)
    return [l for l in se.splitlines() if DIAG_RE.match(l) and ": note:" not in l] if rc else []


def nm_exports(lib):
    """-> (set of defined dynamic symbols, error message or None)"""
    if not os.path.isfile(lib):
        return set(), f"library {lib} does not exist"
    rc, so, se = run(["nm", "-D", "--defined-only", lib])
    if rc != 0:
        return set(), f"nm -D failed on {lib}: {se.strip()[:300]}"
    out = set()
    for line in so.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "TtWiDdBbRrVu":
            out.add(parts[2].split("@")[0])
    return out, None


MISSING_PATTERNS = [
    r"expected (?:declaration specifiers or '...'|specifier-qualifier-list) before '([^']+)'",
    r"'([^']+)' undeclared", r"unknown type name '([^']+)'", r"has no member named '([^']+)'",
    r"#error missing macro (\S+)", r"implicit declaration of function '([^']+)'",
    r"incomplete type '([^']+)'", r"'([^']+)' has an incomplete type",
    r"storage size of '([^']+)' isn't known",
]


def summarize_msgs(msgs):
    missing = []
    for m in msgs:
        for pat in MISSING_PATTERNS:
            for x in re.findall(pat, m):
                if x not in missing and x not in ("p", "d", "v", "s", "i") and not x.startswith("abi_"):
                    missing.append(x)
    s = "; ".join(dict.fromkeys(msgs))
    if len(s) > 400:
        s = s[:400] + "..."
    return (f"missing: {', '.join(missing)} -- " if missing else "") + s


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------
def main(argv=None):
    global VERBOSE
    ap = argparse.ArgumentParser(description="Prove our libblosc2 headers/library are ABI-compatible "
                                             "with the reference c-blosc2 headers.")
    ap.add_argument("--ref-include", required=True, help="reference include dir (has blosc2.h, b2nd.h, blosc2/)")
    ap.add_argument("--our-include", required=True, help="our include dir")
    ap.add_argument("--our-lib", required=True, help="our shared library (libblosc2.so[.9])")
    ap.add_argument("--symbols", default="/work/shared/abi/exported-symbols.txt",
                    help="list of public functions, one per line")
    ap.add_argument("--workdir", help="where generated sources/binaries go (default: temp dir, removed)")
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--require-all-exports", action="store_true",
                    help="fail for listed functions neither declared nor exported (final gate)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print passes, skip list, parse details")
    args = ap.parse_args(argv)
    VERBOSE = args.verbose
    t0 = time.time()

    ref = os.path.abspath(args.ref_include)
    ours = os.path.abspath(args.our_include)
    if not os.path.isfile(os.path.join(ref, "blosc2.h")):
        raise SystemExit(f"no blosc2.h in --ref-include {ref} (run scripts/fetch-reference.sh?)")
    if args.workdir:
        workdir = os.path.abspath(args.workdir)
        os.makedirs(workdir, exist_ok=True)
        cleanup = False
    else:
        workdir = tempfile.mkdtemp(prefix="check_abi.")
        cleanup = True

    predef = gcc_predefined(args.cc)
    hdr = parse_reference(ref, predef)
    hdr_compat = parse_reference(ref, predef, extra_defines=("BLOSC1_COMPAT",))
    compat_names = (set(hdr_compat.constants) - set(hdr.constants)) | (set(hdr_compat.aliases) - set(hdr.aliases))
    for w in hdr.pp.warnings:
        print("warning (parser):", w)

    if os.path.isfile(args.symbols):
        with open(args.symbols) as f:
            symbols = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    else:
        print(f"warning: symbols list {args.symbols} not found; using BLOSC_EXPORT prototypes")
        symbols = sorted(n for n, f in hdr.functions.items() if f["exported"])

    nfields = sum(len(s.fields) for s in hdr.structs)
    print(f"reference headers: {', '.join(hdr.files)}")
    print(f"  structs: {len(hdr.structs)} ({nfields} fields); constants: {len(hdr.constants)} "
          f"(+{len(compat_names)} under BLOSC1_COMPAT); typedefs: {len(hdr.typedefs)}; "
          f"static const defaults: {len(hdr.defaults)}; macros (presence): {len(hdr.presence)}; "
          f"static/inline helpers: {len(hdr.inlines)}; prototypes: {len(hdr.functions)} "
          f"({sum(f['exported'] for f in hdr.functions.values())} BLOSC_EXPORT)")
    print(f"  structs: {', '.join(s.cname for s in hdr.structs)}")
    print(f"  defaults: {', '.join(d[0] for d in hdr.defaults)}")
    print(f"  helpers: {', '.join(sorted(hdr.inlines))}")
    if VERBOSE:
        print("  skipped macros (not value-checked):")
        for n, r in hdr.skipped:
            print(f"    {n}: {r}")
        for u in hdr.unparsed:
            print("  unparsed declaration:", u[:200])
        print("  explicit skip lists: headers", sorted(SKIP_HEADERS), "macros", sorted(SKIP_MACROS))

    results = []   # (category, iid, ok, detail)
    parents = {}   # iid -> parent iid

    def add(cat, iid, ok, detail=""):
        results.append((cat, iid, ok, detail))

    # ---- headers present in ours
    headers = []
    for h in hdr.files:
        if os.path.isfile(os.path.join(ours, h)):
            headers.append(h)
            add("header", f"H:{h}", True)
        else:
            add("header", f"H:{h}", False, f"header {h} missing from {ours}")

    # ---- generate items
    pre, litems = build_layout_items(hdr)
    cpre, citems = build_layout_items(hdr_compat, compat_only=compat_names)
    ditems = build_decl_items(hdr, symbols)
    for it in litems + ditems:
        if it.parent:
            parents[it.iid] = it.parent
    listed_not_in_ref = [s for s in symbols if s not in hdr.functions and s not in hdr.inlines]

    # ---- run everything (2 parallel jobs)
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        jobs["lref"] = ex.submit(run_layout, args.cc, workdir, "ref", ref, hdr.files, (), pre, litems)
        jobs["lour"] = ex.submit(run_layout, args.cc, workdir, "ours", ours, headers, (), pre, litems)
        jobs["cref"] = ex.submit(run_layout, args.cc, workdir, "compat_ref", ref, hdr.files,
                                 ("BLOSC1_COMPAT",), cpre, citems)
        jobs["cour"] = ex.submit(run_layout, args.cc, workdir, "compat_ours", ours, headers,
                                 ("BLOSC1_COMPAT",), cpre, citems)
        jobs["dref"] = ex.submit(run_decls, args.cc, workdir, "ref", ref, hdr.files, ditems)
        jobs["dour"] = ex.submit(run_decls, args.cc, workdir, "ours", ours, headers, ditems)
        jobs["nm"] = ex.submit(nm_exports, args.our_lib)
        standalone = build_standalone_tus(hdr)
        for h, lines in standalone.items():
            jobs["alone_ref:" + h] = ex.submit(run_standalone, args.cc, workdir, ref, h, lines)
            jobs["alone_our:" + h] = ex.submit(run_standalone, args.cc, workdir, ours, h, lines)
        jobs["href"] = ex.submit(run_header_selfcheck, args.cc, workdir, "ref", ref, hdr.files)
        jobs["hour"] = ex.submit(run_header_selfcheck, args.cc, workdir, "ours", ours, headers)
        res = {k: v.result() for k, v in jobs.items()}

    tool_errors = []
    header_errors = []
    for e in res["href"]:
        tool_errors.append("reference headers do not compile with our flags: " + e)
        add("tool", "TOOL:headers", False, e)
    for h in hdr.files:
        r_ref, r_our = res["alone_ref:" + h], res["alone_our:" + h]
        if r_ref:
            tool_errors.append(f"standalone {h}: fails against reference: {r_ref[:5]}")
            add("tool", f"TOOL:standalone:{h}", False, str(r_ref[:5]))
        if r_our is None:
            continue    # header missing: already reported
        if not args.require_all_exports:
            # Functions we do not implement yet are neither declared nor exported; they are
            # reported in the summary, not counted against a header.
            exported = res["nm"][0]
            r_our = [n for n in r_our if not (n in hdr.functions and n not in exported)]
        add("header", f"H:{h}:standalone", not r_our,
            f"including only {h} does not provide: " + ", ".join(r_our[:25])
            + (f" ... ({len(r_our)} total)" if len(r_our) > 25 else ""))
    add("header", "H:compiles-cleanly", not res["hour"],
        "our headers do not compile cleanly with " + " ".join(CFLAGS) + ": " + " | ".join(res["hour"][:5])
        if res["hour"] else "")

    # ---- layout comparison
    def compare_layout(items, ref_res, our_res):
        rvals, rfail, rherr = ref_res
        ovals, ofail, oherr = our_res
        for e in rherr:
            tool_errors.append("reference layout program: " + e)
            add("tool", "TOOL:layout", False, e)
        for e in oherr:
            if e not in header_errors:
                header_errors.append(e)

        def group(vals):
            g = {}
            for k, v in vals.items():
                iid = re.split(r"\|", k, 1)[0]
                g.setdefault(iid, {})[k] = v
            return g
        rg, og = group(rvals), group(ovals)
        for it in items:
            if it.iid in rfail:
                tool_errors.append(f"{it.iid}: fails against the reference headers: {summarize_msgs(rfail[it.iid])}")
                add(it.category, it.iid, False, "TOOL ERROR (fails against reference)")
                continue
            if it.iid in ofail:
                add(it.category, it.iid, False, summarize_msgs(ofail[it.iid]))
                continue
            rv, ov = rg.get(it.iid, {}), og.get(it.iid, {})
            diffs = []
            for k in sorted(set(rv) | set(ov)):
                a, b = rv.get(k), ov.get(k)
                if a == b:
                    continue
                if k.endswith("|macro"):
                    if a == "1" and b == "0":
                        diffs.append("reference defines it as a macro (#ifdef works); ours does not")
                    continue
                diffs.append(f"{k.split(':', 1)[1]}: ref={a} ours={b}")
            if not rv and not ov:
                diffs.append("no output")
            add(it.category, it.iid, not diffs, "; ".join(diffs) or (" ".join(rv.values())))

    compare_layout(litems, res["lref"], res["lour"])
    compare_layout(citems, res["cref"], res["cour"])

    # ---- declarations
    rper, rother = res["dref"]
    oper, oother = res["dour"]
    for e in rother:
        tool_errors.append("reference decls TU: " + e)
        add("tool", "TOOL:decls", False, e)
    for e in oother:
        if e not in header_errors:
            header_errors.append(e)
    exports, nm_err = res["nm"]
    add("library", "L:" + os.path.basename(args.our_lib), nm_err is None, nm_err or "")
    listed = set(symbols)
    fn_results = {}
    for it in ditems:
        if it.iid in rper:
            tool_errors.append(f"{it.iid}: fails against the reference headers: {summarize_msgs(rper[it.iid])}")
            add(it.category, it.iid, False, "TOOL ERROR (fails against reference)")
            continue
        if it.category in ("fn-declared", "fn-signature"):
            fn_results.setdefault(it.iid.split(":", 1)[1], {})[it.category] = oper.get(it.iid)
            continue
        ok = it.iid not in oper
        add(it.category, it.iid, ok, summarize_msgs(oper[it.iid]) if not ok else "")

    not_impl = []
    for name in symbols:
        if name not in fn_results:
            continue
        r = fn_results[name]
        declared = r.get("fn-declared") is None
        sig_err = r.get("fn-signature")
        exported = name in exports
        iid = f"FN:{name}"
        if not declared and not exported:
            if args.require_all_exports:
                add("function", iid, False, "neither declared in our header nor exported by our library")
            else:
                not_impl.append(name)
            continue
        problems = []
        if not declared:
            problems.append("exported by our library but not declared in our headers ("
                            + summarize_msgs(r["fn-declared"]) + ")")
        elif sig_err:
            problems.append("prototype differs from reference: " + summarize_msgs(sig_err))
        if not exported:
            problems.append("declared in our header but NOT exported by our library")
        add("function", iid, not problems, "; ".join(problems) or hdr.functions[name]["proto"])

    # ---- report
    print()
    if tool_errors:
        print("== TOOL ERRORS (item fails against the reference itself; please fix check_abi.py) ==")
        for e in tool_errors:
            print("  " + e)
    if header_errors:
        print("== diagnostics not attributable to a single item (our headers?) ==")
        for e in header_errors[:40]:
            print("  " + e)
    # fold children only under parents that fail to compile (missing), not under value mismatches
    failed_ids = {r[1] for r in results if not r[2] and "ref=" not in r[3]}
    cats = []
    for c, *_ in results:
        if c not in cats:
            cats.append(c)
    for c in cats:
        rs = [r for r in results if r[0] == c]
        nf = sum(not r[2] for r in rs)
        print(f"== {c}: {len(rs) - nf}/{len(rs)} passed ==")
        notchecked = [r for r in rs if not r[2] and r[3].startswith("not checked")]
        if notchecked and not VERBOSE:
            print(f"  FAIL {len(notchecked)} items not checked: {notchecked[0][3]} "
                  f"(e.g. {', '.join(r[1] for r in notchecked[:3])}; -v lists all)")
        folded = {}
        for _, iid, ok, detail in rs:
            if not ok and not VERBOSE and parents.get(iid) in failed_ids and not detail.startswith("not checked"):
                folded.setdefault(parents[iid], []).append(iid)
        for par, iids in folded.items():
            print(f"  FAIL {len(iids)} items of {par[2:]} ({iids[0]}, ...): {par} itself fails (-v lists them)")
        for _, iid, ok, detail in rs:
            if not ok:
                if not VERBOSE and (detail.startswith("not checked") or parents.get(iid) in folded):
                    continue
                print(f"  FAIL {iid}: {detail}")
            elif VERBOSE:
                print(f"  ok   {iid}" + (f"  [{detail}]" if detail else ""))

    print()
    n_exp = sum(1 for s in symbols if s in exports)
    print(f"info: our library exports {n_exp}/{len(symbols)} listed functions")
    if not_impl:
        print(f"info: {len(not_impl)} listed functions are neither declared nor exported yet "
              f"(not counted; use --require-all-exports to fail on them): "
              + " ".join(not_impl[:20]) + (" ..." if len(not_impl) > 20 else ""))
    if listed_not_in_ref:
        print(f"info: listed symbols without a prototype in the reference headers: {' '.join(listed_not_in_ref)}")
    extra = sorted(e for e in exports if e not in listed)
    print(f"info: our library exports {len(extra)} further (unlisted) dynamic symbols"
          + (": " + " ".join(extra[:15]) + (" ..." if len(extra) > 15 else "") if extra else ""))
    unlisted_ref = sorted(n for n, f in hdr.functions.items() if n not in listed)
    if unlisted_ref:
        print(f"info: reference prototypes not in the symbols list (not checked): {' '.join(unlisted_ref)}")
    npass = sum(1 for r in results if r[2])
    nfail = len(results) - npass
    if cleanup:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"info: generated sources kept in {workdir}")
    print(f"info: took {time.time() - t0:.1f}s")
    print(f"abi: {npass} passed, {nfail} failed")
    return 0 if nfail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
