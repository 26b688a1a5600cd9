#!/usr/bin/env python3
"""Derive a catalog of Transloadit robots and their parameters from the zod
schemas published in the Transloadit Node SDK (github.com/transloadit/node-sdk,
folder ``.../src/alphalib/types/robots``).  Standard library only.

Usage
-----
    python3 derive_robot_catalog.py PATH [-o robots.json] [--commit SHA]
                                         [--summary summary.json]

PATH may be
  * a checkout of node-sdk (the robots folder is searched for below it:
    ``packages/node/src/alphalib/types/robots`` or ``src/alphalib/types/robots``),
  * the robots folder itself (the folder holding ``_instructions-primitives.ts``
    and one ``<robot>.ts`` file per robot), or
  * a bare git directory of node-sdk (files are then read with ``git show``
    from ``--rev``, default HEAD).
The commit is taken from ``git rev-parse`` when PATH is inside a git
repository, else from ``--commit`` (else null).

How the derivation works
------------------------
1. Tokenizer.  Each .ts file is split into tokens by a small hand-written
   TypeScript tokenizer: identifiers, numbers (``25_000``), '/"-strings (with
   escapes decoded), template literals (``${...}`` substitutions are tokenized
   recursively), regular-expression literals, punctuators; comments are kept
   and attached to the following token.
2. Parser.  Only top-level ``import`` and ``const``/``let`` declarations are
   read.  The initializer of each ``const`` is parsed by a small recursive
   descent parser into an AST of literals, identifiers, member accesses, calls,
   object/array literals (with spreads), binary/ternary operators and arrow
   functions.  TypeScript-only syntax (``: Type`` annotations, ``as``/
   ``satisfies`` casts, ``z.custom<T>(...)`` type arguments) is skipped.  Arrow
   function bodies are not parsed unless needed (only ``z.lazy``).
3. Evaluator.  The AST is evaluated symbolically: ``z.string()``,
   ``z.number()``, ``z.enum([...])``, ``z.union``, ``z.object`` ... build a
   small schema model, and the zod methods (``.int() .min() .max()
   .positive() .regex() .default() .describe() .optional() .nullable()
   .extend() .merge() .omit() .pick() .strict() .shape`` ...) transform it.
   Identifiers are resolved through the file's own top-level constants and
   through ``import { ... } from './x.ts'`` into other files (notably
   ``_instructions-primitives.ts``), so shared building blocks such as
   ``robotBase``, ``robotUse``, ``robotImagemagick``, ``robotFFmpegVideo``,
   ``s3Base``... are expanded.  Anything the evaluator cannot compute
   (calls of ordinary functions, ``z.custom``, computed keys ...) becomes an
   "unknown" value carrying a reason; it is never guessed.
4. Selection.  In every ``<name>.ts`` file that does not start with ``_``,
   the exported constant ``robot<Name>InstructionsSchema`` (the public schema,
   not ``...WithHiddenFields`` nor ``interpolatable...``) is evaluated; the
   robot's name is the value of its ``robot: z.literal('/x/y')`` key.  Robot
   title/summary/stage/internal come from the exported ``meta`` object
   (``title``, ``purpose_sentence``, ``stage``, ``isInternal``).  Whether a
   robot is part of the public union ``robotStepsInstructions`` is read from
   ``_index.ts`` when present.
5. Output.  Every robot lists ALL its parameters inline (shared parameters
   included), except the discriminator ``robot`` itself.  A parameter that
   was defined in a shared building block of ``_instructions-primitives.ts``
   carries ``"shared_from": "<block name>"``, and the top-level ``"shared"``
   section lists each such block and its parameter names (informational; the
   per-robot entry is authoritative, because robots may override a shared
   parameter, e.g. ``robotImport`` overrides ``ignore_errors``).

Parameter descriptor keys
-------------------------
  type          "string" | "integer" | "number" | "boolean" | "array" |
                "object" | "any", or a list of them for unions.
                ``null`` is never a type; see ``nullable``.
  enum          the complete, closed set of accepted values (only when the
                schema accepts nothing else, apart from null if nullable).
  suggestions   known values of an OPEN set (e.g. ``union([enum([...]),
                string().regex(...)])``) or the literal part of an enum whose
                full value list is computed at run time.
  minimum / maximum / exclusiveMinimum / exclusiveMaximum   numbers.
  minLength / maxLength / length / pattern / format          strings.
  minItems / maxItems                                        arrays.
  default       present only when the schema has ``.default(...)``.
  nullable      true when ``null`` is accepted.
  required      true when the key must be present (no optional/default).
  description   first non-empty line of ``.describe(...)``; if there is none,
                the first line of a comment directly above the key (comments
                starting with TODO/FIXME/NOTE/eslint... are ignored).
  items         descriptor of array elements; ``prefixItems`` for tuples.
  properties    descriptors of a nested object's keys (nesting is limited).
  values        descriptor of a record's values (``z.record``).
  anyOf         one descriptor per union alternative, kept when the flat
                type/enum above would lose information.
  shared_from   name of the shared building block the parameter comes from.
  notes         things the derivation could not capture for this parameter.

What it cannot capture
----------------------
  * Logic in functions: ``.refine()``/``.superRefine()`` checks,
    ``.transform()`` output mapping, ``z.preprocess()`` input coercion (the
    validated inner schema is reported, plus a note), ``z.custom()`` (type
    "any").
  * Values computed by ordinary function calls (e.g. enum lists built by a
    helper such as ``createPresets([...])``): the enum is then omitted, the
    literal arguments are offered as ``suggestions`` and a note is added.
  * ``z.instanceof(...)`` alternatives (not representable in JSON) are
    dropped from unions with a note.
  * Assembly-variable interpolation: at run time every robot schema is
    wrapped by ``interpolateRobot(...)`` so most fields additionally accept
    ``"${...}"`` strings; this wrapper is a function and is not modelled.
  * Hidden/legacy fields (``...WithHiddenFieldsSchema``) are not included.
  * Cross-field rules, conditional requirements and free-text documentation
    beyond the first line of each description.
  * Syntax outside the subset described above yields "unknown" values; they
    are reported as type "any" with a note, and listed by ``--summary``.
"""

import argparse
import copy
import json
import os
import re
import subprocess
import sys
from collections import OrderedDict

# --------------------------------------------------------------------------
# Tokenizer
# --------------------------------------------------------------------------

PUNCTS = [
    '...', '===', '!==', '**=', '??=', '&&=', '||=',
    '=>', '==', '!=', '<=', '&&', '||', '??', '?.', '**', '++', '--',
    '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=',
    '{', '}', '(', ')', '[', ']', ';', ',', '<', '>', '+', '-', '*', '/',
    '%', '&', '|', '^', '!', '~', '?', ':', '=', '.', '@', '#',
]
REGEX_PREV_KEYWORDS = {'return', 'typeof', 'case', 'do', 'else', 'in', 'of',
                       'new', 'delete', 'void', 'throw', 'instanceof', 'yield',
                       'await'}
STATEMENT_KEYWORDS = {'export', 'import', 'const', 'let', 'var', 'type',
                      'interface', 'function', 'class', 'enum', 'declare',
                      'async', 'default'}
IDENT_START = re.compile(r'[A-Za-z_$\u00c0-\uffff]')
IDENT_RE = re.compile(r'[A-Za-z0-9_$\u00c0-\uffff]*')
NUM_RE = re.compile(r'0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|'
                    r'(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?n?')


class TSyntaxError(Exception):
    pass


class Tok(object):
    __slots__ = ('kind', 'value', 'start', 'end', 'nl', 'comments', 'raw')

    def __init__(self, kind, value, start, end, nl, comments, raw=None):
        self.kind = kind        # ident num str tmpl regex punct eof
        self.value = value
        self.start = start
        self.end = end
        self.nl = nl            # a newline precedes this token
        self.comments = comments
        self.raw = raw

    def is_p(self, *vals):
        return self.kind == 'punct' and self.value in vals

    def is_id(self, *vals):
        return self.kind == 'ident' and (not vals or self.value in vals)

    def __repr__(self):
        return 'Tok(%s,%r)' % (self.kind, self.value)


def _cook(s):
    """Decode JavaScript string escapes."""
    out = []
    i = 0
    n = len(s)
    simple = {'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f',
              'v': '\v', '0': '\0'}
    while i < n:
        c = s[i]
        if c != '\\':
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= n:
            break
        c = s[i]
        if c in simple and not (c == '0' and i + 1 < n and s[i + 1].isdigit()):
            out.append(simple[c])
            i += 1
        elif c == 'x':
            out.append(chr(int(s[i + 1:i + 3], 16)))
            i += 3
        elif c == 'u':
            if i + 1 < n and s[i + 1] == '{':
                j = s.index('}', i)
                out.append(chr(int(s[i + 2:j], 16)))
                i = j + 1
            else:
                out.append(chr(int(s[i + 1:i + 5], 16)))
                i += 5
        elif c == '\r':
            i += 1
            if i < n and s[i] == '\n':
                i += 1
        elif c == '\n':
            i += 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def tokenize(src, pos=0, in_subst=False):
    """Tokenize src from pos.  With in_subst, stop at the '}' closing a
    template substitution and return (tokens, index_of_that_brace)."""
    toks = []
    n = len(src)
    i = pos
    nl = False
    comments = []
    depth = 0
    while True:
        # whitespace and comments
        while i < n:
            c = src[i]
            if c == '\n':
                nl = True
                i += 1
            elif c in ' \t\r\f\v\ufeff\u00a0\u2028\u2029':
                i += 1
            elif src.startswith('//', i):
                j = src.find('\n', i)
                j = n if j < 0 else j
                comments.append(src[i + 2:j])
                i = j
            elif src.startswith('/*', i):
                j = src.find('*/', i + 2)
                if j < 0:
                    raise TSyntaxError('unterminated comment')
                comments.append(src[i + 2:j])
                i = j + 2
            else:
                break
        if i >= n:
            if in_subst:
                raise TSyntaxError('unterminated template substitution')
            toks.append(Tok('eof', None, i, i, True, comments))
            return toks, i
        c = src[i]
        start = i
        prev = toks[-1] if toks else None
        if in_subst and c == '}' and depth == 0:
            return toks, i
        if IDENT_START.match(c):
            m = IDENT_RE.match(src, i + 1)
            i = m.end()
            tok = Tok('ident', src[start:i], start, i, nl, comments)
        elif c.isdigit() or (c == '.' and i + 1 < n and src[i + 1].isdigit()):
            m = NUM_RE.match(src, i)
            i = m.end()
            text = src[start:i].replace('_', '').rstrip('n')
            if text[:2].lower() in ('0x', '0b', '0o'):
                val = int(text, 0)
            elif re.fullmatch(r'\d+', text):
                val = int(text)
            else:
                val = float(text)
                if val.is_integer() and 'e' not in text.lower() and '.' not in text:
                    val = int(val)
            tok = Tok('num', val, start, i, nl, comments, src[start:i])
        elif c in '\'"':
            j = i + 1
            while j < n and src[j] != c:
                if src[j] == '\\':
                    j += 1
                elif src[j] == '\n':
                    raise TSyntaxError('newline in string')
                j += 1
            i = j + 1
            tok = Tok('str', _cook(src[start + 1:j]), start, i, nl, comments)
        elif c == '`':
            parts = []
            j = i + 1
            buf_start = j
            while True:
                if j >= n:
                    raise TSyntaxError('unterminated template')
                ch = src[j]
                if ch == '\\':
                    j += 2
                    continue
                if ch == '`':
                    parts.append(('s', _cook(src[buf_start:j])))
                    j += 1
                    break
                if ch == '$' and j + 1 < n and src[j + 1] == '{':
                    parts.append(('s', _cook(src[buf_start:j])))
                    sub, k = tokenize(src, j + 2, in_subst=True)
                    sub.append(Tok('eof', None, k, k, True, []))
                    parts.append(('e', sub, src[j:k + 1]))
                    j = k + 1
                    buf_start = j
                    continue
                j += 1
            i = j
            tok = Tok('tmpl', parts, start, i, nl, comments)
        elif c == '/' and (prev is None or
                           (prev.kind == 'punct' and prev.value not in (')', ']', '}')) or
                           (prev.kind == 'ident' and prev.value in REGEX_PREV_KEYWORDS)):
            j = i + 1
            in_class = False
            while True:
                if j >= n or src[j] == '\n':
                    raise TSyntaxError('unterminated regex')
                ch = src[j]
                if ch == '\\':
                    j += 2
                    continue
                if ch == '[':
                    in_class = True
                elif ch == ']':
                    in_class = False
                elif ch == '/' and not in_class:
                    break
                j += 1
            body = src[i + 1:j]
            m = IDENT_RE.match(src, j + 1)
            i = m.end()
            tok = Tok('regex', (body, src[j + 1:i]), start, i, nl, comments)
        else:
            for p in PUNCTS:
                if src.startswith(p, i):
                    break
            else:
                raise TSyntaxError('unexpected character %r at %d' % (c, i))
            # never merge '>' with following '>' / '=' (generics)
            i += len(p)
            tok = Tok('punct', p, start, i, nl, comments)
            if in_subst:
                if p == '{':
                    depth += 1
                elif p == '}':
                    depth -= 1
        toks.append(tok)
        nl = False
        comments = []


# --------------------------------------------------------------------------
# Parser (expression subset)
# --------------------------------------------------------------------------

class Node(object):
    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)

    def __repr__(self):
        return 'Node(%s)' % self.kind


BINARY_OPS = {'||', '&&', '??', '===', '!==', '==', '!=', '<', '>', '<=',
              '+', '-', '*', '/', '%', '**', '|', '&', '^'}


class Parser(object):
    def __init__(self, toks, src):
        self.t = toks
        self.i = 0
        self.src = src

    def peek(self, k=0):
        j = min(self.i + k, len(self.t) - 1)
        return self.t[j]

    def next(self):
        tok = self.t[self.i]
        if tok.kind != 'eof':
            self.i += 1
        return tok

    def expect_p(self, v):
        tok = self.next()
        if not tok.is_p(v):
            raise TSyntaxError('expected %r, got %r at %d' % (v, tok.value, tok.start))
        return tok

    # -- skipping helpers -------------------------------------------------
    def matching(self, j):
        """Index of the bracket closing the one at index j."""
        pairs = {'(': ')', '[': ']', '{': '}'}
        stack = []
        while j < len(self.t):
            tok = self.t[j]
            if tok.kind == 'eof':
                raise TSyntaxError('unbalanced brackets')
            if tok.kind == 'punct':
                if tok.value in pairs:
                    stack.append(pairs[tok.value])
                elif tok.value in (')', ']', '}'):
                    if not stack or stack.pop() != tok.value:
                        raise TSyntaxError('mismatched bracket')
                    if not stack:
                        return j
            j += 1
        raise TSyntaxError('unbalanced brackets')

    def skip_until_terminator(self, stop_at_eq=False):
        """Skip a (type or expression) token run up to a depth-0 terminator."""
        start = self.i
        angle = 0
        while True:
            tok = self.peek()
            if tok.kind == 'eof':
                break
            if self.i > start and tok.nl and tok.is_id() and tok.value in STATEMENT_KEYWORDS and angle == 0:
                break
            if tok.kind == 'punct':
                if tok.value in ('(', '[', '{'):
                    self.i = self.matching(self.i) + 1
                    continue
                if tok.value in (')', ']', '}', ',', ';'):
                    if angle == 0 or tok.value in (')', ']', '}', ';'):
                        break
                if stop_at_eq and tok.value == '=' and angle == 0:
                    break
                if stop_at_eq and tok.value == '<':
                    angle += 1
                elif stop_at_eq and tok.value == '>' and angle > 0:
                    angle -= 1
            self.next()
        return start, self.i

    def skip_type(self):
        """Skip a type after 'as'/'satisfies'/':'."""
        angle = 0
        first = True
        while True:
            tok = self.peek()
            if tok.kind == 'eof':
                return
            if not first and tok.nl and angle == 0 and not tok.is_p('|', '&', '[', '.', '<'):
                return
            if tok.kind == 'punct':
                if tok.value in ('(', '[', '{'):
                    self.i = self.matching(self.i) + 1
                    first = False
                    continue
                if tok.value in (')', ']', '}', ',', ';', '=') and angle == 0:
                    return
                if tok.value == '<':
                    angle += 1
                elif tok.value == '>':
                    if angle == 0:
                        return
                    angle -= 1
                elif tok.value == '=>' and angle == 0:
                    return
            elif angle == 0 and not first and tok.kind == 'ident' and \
                    self.t[self.i - 1].kind in ('ident', 'str', 'num') and \
                    not self.t[self.i - 1].is_id('keyof', 'typeof', 'readonly', 'unique', 'infer'):
                return
            first = False
            self.next()

    def try_skip_type_args(self):
        """At '<': skip generic type arguments if followed by '('."""
        save = self.i
        angle = 0
        steps = 0
        while steps < 400:
            tok = self.peek()
            if tok.kind == 'eof':
                break
            if tok.kind == 'punct':
                if tok.value == '<':
                    angle += 1
                elif tok.value == '>':
                    angle -= 1
                    if angle == 0:
                        self.next()
                        if self.peek().is_p('('):
                            return True
                        break
                elif tok.value in ('(', '[', '{'):
                    self.i = self.matching(self.i) + 1
                    steps += 1
                    continue
                elif tok.value in (')', ']', '}', ';', '=', '&&', '||'):
                    break
            self.next()
            steps += 1
        self.i = save
        return False

    # -- expressions --------------------------------------------------------
    def parse_expr(self):
        node = self.parse_binary()
        if self.peek().is_p('?'):
            self.next()
            a = self.parse_assign_expr()
            self.expect_p(':')
            b = self.parse_assign_expr()
            node = Node('ternary', cond=node, a=a, b=b)
        return node

    parse_assign_expr = parse_expr

    def parse_binary(self):
        left = self.parse_unary()
        while True:
            tok = self.peek()
            if tok.kind == 'ident' and tok.value in ('as', 'satisfies') and not tok.nl:
                self.next()
                self.skip_type()
                continue
            if tok.kind == 'ident' and tok.value in ('instanceof', 'in') and not tok.nl:
                self.next()
                right = self.parse_unary()
                left = Node('binop', op=tok.value, a=left, b=right)
                continue
            if tok.kind == 'punct' and tok.value in BINARY_OPS:
                self.next()
                right = self.parse_unary()
                left = Node('binop', op=tok.value, a=left, b=right)
                continue
            return left

    def parse_unary(self):
        tok = self.peek()
        if tok.kind == 'punct' and tok.value in ('!', '-', '+', '~'):
            self.next()
            operand = self.parse_unary()
            return Node('unary', op=tok.value, a=operand)
        if tok.kind == 'ident' and tok.value in ('typeof', 'void', 'await', 'delete'):
            self.next()
            operand = self.parse_unary()
            return Node('unary', op=tok.value, a=operand)
        if tok.kind == 'ident' and tok.value == 'new':
            self.next()
            callee = self.parse_primary()
            while self.peek().is_p('.'):
                self.next()
                callee = Node('member', obj=callee, name=self.next().value)
            args = self.parse_args() if self.peek().is_p('(') else []
            return self.parse_postfix(Node('new', callee=callee, args=args))
        return self.parse_postfix(self.parse_primary())

    def parse_args(self):
        self.expect_p('(')
        args = []
        while not self.peek().is_p(')'):
            if self.peek().is_p('...'):
                self.next()
                args.append(Node('spread', a=self.parse_expr()))
            else:
                args.append(self.parse_expr())
            if self.peek().is_p(','):
                self.next()
            elif not self.peek().is_p(')'):
                raise TSyntaxError('expected , or ) at %d' % self.peek().start)
        self.next()
        return args

    def parse_postfix(self, node):
        while True:
            tok = self.peek()
            if tok.is_p('.', '?.'):
                self.next()
                if self.peek().is_p('('):      # f?.(x)
                    node = Node('call', callee=node, args=self.parse_args())
                    continue
                name = self.next()
                if name.kind != 'ident':
                    raise TSyntaxError('expected property name at %d' % name.start)
                node = Node('member', obj=node, name=name.value)
            elif tok.is_p('(') and not tok.nl:
                node = Node('call', callee=node, args=self.parse_args())
            elif tok.is_p('(') and tok.nl and node.kind in ('member', 'ident', 'call'):
                node = Node('call', callee=node, args=self.parse_args())
            elif tok.is_p('[') and not tok.nl:
                self.next()
                idx = self.parse_expr()
                self.expect_p(']')
                node = Node('index', obj=node, idx=idx)
            elif tok.is_p('!') and not tok.nl and not self.peek(1).is_p('='):
                self.next()
            elif tok.is_p('<') and node.kind in ('member', 'ident') and self.try_skip_type_args():
                continue
            elif tok.kind == 'tmpl' and not tok.nl:
                self.next()
                node = Node('tagged', tag=node)
            else:
                return node

    def parse_arrow_rest(self):
        """After '=>': parse body lazily (store token range)."""
        if self.peek().is_p('{'):
            s = self.i
            self.i = self.matching(self.i) + 1
            return Node('arrow', body=None, range=(s, self.i), parser=self)
        s, e = self.skip_until_terminator()
        return Node('arrow', body=None, range=(s, e), parser=self)

    def parse_primary(self):
        tok = self.peek()
        if tok.kind == 'num':
            self.next()
            return Node('lit', value=tok.value)
        if tok.kind == 'str':
            self.next()
            return Node('lit', value=tok.value)
        if tok.kind == 'regex':
            self.next()
            return Node('regex', pattern=tok.value[0], flags=tok.value[1])
        if tok.kind == 'tmpl':
            self.next()
            parts = []
            for p in tok.value:
                if p[0] == 's':
                    parts.append(p)
                else:
                    try:
                        sub = Parser(p[1], self.src)
                        e = sub.parse_expr()
                        if sub.peek().kind != 'eof':
                            raise TSyntaxError('trailing tokens in substitution')
                    except TSyntaxError:
                        e = None
                    parts.append(('e', e, p[2]))
            return Node('tmpl', parts=parts)
        if tok.kind == 'ident':
            v = tok.value
            if self.peek(1).is_p('=>'):
                self.next()
                self.next()
                return self.parse_arrow_rest()
            if v == 'async' and (self.peek(1).is_p('(') or self.peek(1).is_id()):
                self.next()
                return self.parse_primary()
            if v == 'function':
                self.next()
                if self.peek().is_id():
                    self.next()
                if self.peek().is_p('<'):
                    self.skip_type()
                self.i = self.matching(self.i) + 1          # params
                if self.peek().is_p(':'):
                    self.next()
                    self.skip_type()
                s = self.i
                self.i = self.matching(self.i) + 1          # body
                return Node('arrow', body=None, range=(s, self.i), parser=self)
            self.next()
            if v == 'true':
                return Node('lit', value=True)
            if v == 'false':
                return Node('lit', value=False)
            if v == 'null':
                return Node('lit', value=None)
            return Node('ident', name=v)
        if tok.is_p('('):
            close = self.matching(self.i)
            after = self.t[close + 1]
            if after.is_p('=>') or after.is_p(':'):
                self.i = close + 1
                if self.peek().is_p(':'):
                    self.next()
                    self.skip_type()
                self.expect_p('=>')
                return self.parse_arrow_rest()
            self.next()
            node = self.parse_expr()
            while self.peek().is_p(','):
                self.next()
                node = self.parse_expr()
            self.expect_p(')')
            return node
        if tok.is_p('['):
            self.next()
            items = []
            while not self.peek().is_p(']'):
                if self.peek().is_p(','):
                    self.next()
                    items.append(Node('lit', value=None))
                    continue
                if self.peek().is_p('...'):
                    self.next()
                    items.append(Node('spread', a=self.parse_expr()))
                else:
                    items.append(self.parse_expr())
                if self.peek().is_p(','):
                    self.next()
                elif not self.peek().is_p(']'):
                    raise TSyntaxError('expected , or ] at %d' % self.peek().start)
            self.next()
            return Node('array', items=items)
        if tok.is_p('{'):
            return self.parse_object()
        if tok.is_p('<'):
            # generic arrow function  <T>(x) => ...
            self.skip_type()
            return self.parse_primary()
        raise TSyntaxError('unexpected token %r at %d' % (tok.value, tok.start))

    def parse_object(self):
        self.expect_p('{')
        entries = []     # (key or None, valueNode, comments)  key None => spread
        while not self.peek().is_p('}'):
            tok = self.peek()
            comments = tok.comments
            if tok.is_p('...'):
                self.next()
                entries.append((None, self.parse_expr(), comments))
            else:
                if tok.kind in ('ident', 'str', 'num'):
                    self.next()
                    key = tok.value if tok.kind != 'num' else str(tok.value)
                    computed = False
                elif tok.is_p('['):
                    close = self.matching(self.i)
                    self.i = close + 1
                    key = None
                    computed = True
                else:
                    raise TSyntaxError('bad object key %r at %d' % (tok.value, tok.start))
                if tok.kind == 'ident' and tok.value in ('get', 'set', 'async') and \
                        self.peek().kind in ('ident', 'str'):
                    key = self.next().value
                if self.peek().is_p('?'):
                    self.next()
                if self.peek().is_p(':'):
                    self.next()
                    val = self.parse_expr()
                elif self.peek().is_p('(') or self.peek().is_p('<'):
                    if self.peek().is_p('<'):
                        self.skip_type()
                    self.i = self.matching(self.i) + 1
                    if self.peek().is_p(':'):
                        self.next()
                        self.skip_type()
                    s = self.i
                    self.i = self.matching(self.i) + 1
                    val = Node('arrow', body=None, range=(s, self.i), parser=self)
                else:
                    val = Node('ident', name=key)       # shorthand
                if computed:
                    entries.append(('\0computed', val, comments))
                else:
                    entries.append((key, val, comments))
            if self.peek().is_p(','):
                self.next()
            elif not self.peek().is_p('}'):
                raise TSyntaxError('expected , or } at %d' % self.peek().start)
        self.next()
        return Node('object', entries=entries)


# --------------------------------------------------------------------------
# Module loading (top-level declarations)
# --------------------------------------------------------------------------

class SourceTree(object):
    """Reads .ts files either from a directory or from a git repository."""

    def __init__(self, root, git_dir=None, rev='HEAD'):
        self.root = root          # directory (fs) or repo-relative folder (git)
        self.git_dir = git_dir
        self.rev = rev

    def _git(self, *args):
        return subprocess.run(['git', '--git-dir', self.git_dir] + list(args),
                              check=True, stdout=subprocess.PIPE).stdout.decode('utf-8')

    def list_ts(self):
        if self.git_dir:
            out = self._git('ls-tree', '--name-only', self.rev, self.root + '/')
            return sorted(os.path.basename(p) for p in out.splitlines() if p.endswith('.ts'))
        return sorted(f for f in os.listdir(self.root) if f.endswith('.ts'))

    def read(self, relpath):
        """relpath relative to the robots folder; may contain '..'."""
        if self.git_dir:
            p = os.path.normpath(os.path.join(self.root, relpath)).replace(os.sep, '/')
            try:
                return self._git('show', '%s:%s' % (self.rev, p))
            except subprocess.CalledProcessError:
                return None
        p = os.path.normpath(os.path.join(self.root, relpath))
        if not os.path.isfile(p):
            return None
        with open(p, encoding='utf-8') as f:
            return f.read()


class Module(object):
    def __init__(self, loader, relpath, src):
        self.loader = loader
        self.relpath = relpath                # relative to robots folder
        self.name = os.path.basename(relpath)
        self.src = src
        self.bindings = OrderedDict()         # name -> Node | Unknown
        self.imports = {}                     # local -> (relpath, imported name | '*')
        self.values = {}
        self.evaluating = set()
        self.parse_errors = []
        self._scan()

    def _scan(self):
        try:
            toks, _ = tokenize(self.src)
        except TSyntaxError as e:
            self.parse_errors.append('tokenizer: %s' % e)
            return
        p = Parser(toks, self.src)
        self.parser = p
        depth = 0
        while p.peek().kind != 'eof':
            tok = p.peek()
            if depth == 0 and tok.is_id('import') and (p.peek(1).kind == 'ident' or p.peek(1).is_p('{', '*')):
                self._scan_import(p)
                continue
            if depth == 0 and tok.is_id('const', 'let', 'var') and p.peek(1).kind == 'ident':
                p.next()
                name = p.next().value
                try:
                    if p.peek().is_p(':'):
                        p.next()
                        p.skip_until_terminator(stop_at_eq=True)
                    p.expect_p('=')
                    node = p.parse_expr()
                    self.bindings[name] = node
                except TSyntaxError as e:
                    self.bindings[name] = Unknown('could not parse initializer of %s (%s)' % (name, e))
                    self.parse_errors.append('%s: %s' % (name, e))
                    # resync to next statement keyword at line start
                    while p.peek().kind != 'eof' and not (p.peek().nl and p.peek().is_id() and
                                                            p.peek().value in STATEMENT_KEYWORDS):
                        p.next()
                continue
            if depth == 0 and tok.is_id('function') and p.peek(1).kind == 'ident':
                self.bindings[p.peek(1).value] = Node('arrow', body=None, range=None, parser=p)
            if tok.kind == 'punct':
                if tok.value in ('(', '[', '{'):
                    depth += 1
                elif tok.value in (')', ']', '}'):
                    depth -= 1
            p.next()

    def _scan_import(self, p):
        p.next()  # import
        type_only = False
        if p.peek().is_id('type') and not p.peek(1).is_id('from'):
            type_only = True
            p.next()
        names = []
        if p.peek().is_id():
            names.append(('default', p.next().value))
            if p.peek().is_p(','):
                p.next()
        if p.peek().is_p('*'):
            p.next()
            p.next()  # as
            names.append(('*', p.next().value))
        if p.peek().is_p('{'):
            p.next()
            while not p.peek().is_p('}'):
                tok = p.next()
                tonly = False
                if tok.is_id('type') and p.peek().is_id():
                    tonly = True
                    tok = p.next()
                imported = tok.value
                local = imported
                if p.peek().is_id('as'):
                    p.next()
                    local = p.next().value
                if not tonly:
                    names.append((imported, local))
                if p.peek().is_p(','):
                    p.next()
            p.next()
        if not p.peek().is_id('from'):
            return
        p.next()
        mod = p.next().value
        if type_only or not isinstance(mod, str):
            return
        if mod.startswith('.'):
            rel = os.path.normpath(os.path.join(os.path.dirname(self.relpath), mod))
        else:
            rel = None        # external package ('zod', ...)
        for imported, local in names:
            if mod == 'zod' and imported in ('z', 'default', '*'):
                self.imports[local] = ('zod', None)
            else:
                self.imports[local] = (rel, imported) if rel else ('external:' + mod, imported)

    def lookup(self, name, ev):
        if name in self.values:
            return self.values[name]
        if name in self.bindings:
            if name in self.evaluating:
                return Unknown('recursive reference to %s' % name, recursive=True)
            self.evaluating.add(name)
            try:
                node = self.bindings[name]
                val = node if isinstance(node, Unknown) else ev.eval(node, self)
                val = self.loader.post_bind(self, name, val)
            finally:
                self.evaluating.discard(name)
            self.values[name] = val
            return val
        if name in self.imports:
            rel, imported = self.imports[name]
            if rel == 'zod':
                return ZNS
            if rel.startswith('external:'):
                return Unknown('value %s imported from package %s' % (imported, rel[9:]))
            mod = self.loader.module(rel)
            if mod is None:
                return Unknown('import %s from missing file %s' % (imported, rel))
            if imported == '*':
                return ModuleNS(mod)
            return mod.lookup(imported, ev)
        return Unknown('unresolved identifier %s' % name)


class Loader(object):
    def __init__(self, tree):
        self.tree = tree
        self.modules = {}

    def module(self, relpath):
        relpath = os.path.normpath(relpath)
        if relpath not in self.modules:
            src = self.tree.read(relpath)
            if src is None and not relpath.endswith('.ts'):
                src = self.tree.read(relpath + '.ts')
            self.modules[relpath] = Module(self, relpath, src) if src is not None else None
        return self.modules[relpath]

    def post_bind(self, module, name, val):
        """Tag parameters of shared building blocks with their origin."""
        if isinstance(val, Schema) and val.kind == 'object' and val.shape and \
                (module.name.startswith('_') or '..' in module.relpath):
            val = val.clone()
            shape = OrderedDict()
            for k, v in val.shape.items():
                if isinstance(v, Schema) and v.origin is None:
                    v = v.clone()
                    v.origin = name
                shape[k] = v
            val.shape = shape
        return val


# --------------------------------------------------------------------------
# Evaluator
# --------------------------------------------------------------------------

class Unknown(object):
    def __init__(self, reason, hints=None, recursive=False):
        self.reason = reason
        self.hints = hints or []
        self.recursive = recursive

    def __repr__(self):
        return 'Unknown(%s)' % self.reason


class _ZNS(object):
    pass


ZNS = _ZNS()


class ZFn(object):
    def __init__(self, name):
        self.name = name


class ModuleNS(object):
    def __init__(self, mod):
        self.mod = mod


class BoundMethod(object):
    def __init__(self, schema, name):
        self.schema = schema
        self.name = name


class Regex(object):
    def __init__(self, pattern, flags):
        self.pattern = pattern
        self.flags = flags


class Schema(object):
    def __init__(self, kind, **kw):
        self.kind = kind            # string number boolean null literal enum array
        #                             object record tuple union intersection any
        #                             unknown custom instance never undefined date
        self.int = False
        self.checks = OrderedDict()
        self.optional = False
        self.nullable = False
        self.has_default = False
        self.default = None
        self.description = None
        self.comment = None
        self.values = None          # enum/literal values
        self.values_complete = True
        self.suggestions = None
        self.item = None            # array element
        self.shape = None           # object
        self.options = None         # union / tuple items
        self.value_schema = None    # record
        self.origin = None
        self.notes = []
        self.unknown_reason = None  # kind 'any' because of unknown
        self.__dict__.update(kw)

    def clone(self):
        c = copy.copy(self)
        c.checks = OrderedDict(self.checks)
        c.notes = list(self.notes)
        if self.shape is not None:
            c.shape = OrderedDict(self.shape)
        if self.options is not None:
            c.options = list(self.options)
        return c

    def add_note(self, note):
        if note not in self.notes:
            self.notes.append(note)


def unknown_schema(reason, hints=None):
    s = Schema('any', unknown_reason=reason)
    if hints:
        s.suggestions = list(hints)
    s.add_note(reason)
    return s


def as_schema(v, what):
    if isinstance(v, Schema):
        return v
    if isinstance(v, Unknown):
        return unknown_schema('%s: %s' % (what, v.reason), v.hints)
    return unknown_schema('%s: not a schema (%s)' % (what, type(v).__name__))


def first_line(text):
    if not isinstance(text, str):
        return None
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line
    return None


COMMENT_SKIP = re.compile(r'^\s*(TODO|FIXME|XXX|HACK|NOTE|eslint|biome|@ts-|prettier|istanbul)', re.I)


def comment_description(comments):
    for c in reversed(comments or []):
        text = re.sub(r'^\s*\*+', '', c, flags=re.M).strip()
        text = re.sub(r'^\s*\*\s?', '', text, flags=re.M)
        if not text or COMMENT_SKIP.match(text):
            return None
        return first_line(text)
    return None


class Evaluator(object):
    def eval(self, node, mod):
        k = node.kind
        if k == 'lit':
            return node.value
        if k == 'regex':
            return Regex(node.pattern, node.flags)
        if k == 'tmpl':
            out = []
            for p in node.parts:
                if p[0] == 's':
                    out.append(p[1])
                else:
                    v = self.eval(p[1], mod) if p[1] is not None else None
                    if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                        out.append(str(v))
                    else:
                        out.append(p[2])      # keep the raw ${...} text
            return ''.join(out)
        if k == 'ident':
            if node.name == 'undefined':
                return Unknown('undefined')
            return mod.lookup(node.name, self)
        if k == 'member':
            return self.member(self.eval(node.obj, mod), node.name)
        if k == 'index':
            obj = self.eval(node.obj, mod)
            idx = self.eval(node.idx, mod)
            if isinstance(obj, dict) and isinstance(idx, str) and idx in obj:
                return obj[idx]
            if isinstance(obj, list) and isinstance(idx, int) and 0 <= idx < len(obj):
                return obj[idx]
            return Unknown('index expression')
        if k == 'call':
            callee = self.eval(node.callee, mod)
            args = self.eval_list(node.args, mod)
            return self.call(callee, args, node, mod)
        if k == 'array':
            return self.eval_list(node.items, mod)
        if k == 'object':
            out = OrderedDict()
            comments = {}
            for key, vnode, cm in node.entries:
                if key is None:
                    v = self.eval(vnode, mod)
                    if isinstance(v, dict):
                        out.update(v)
                    else:
                        out['\0unknown-spread'] = Unknown('object spread of non-object')
                elif key == '\0computed':
                    out['\0computed'] = Unknown('computed object key')
                else:
                    out[key] = LazyValue(self, vnode, mod)
                    comments[key] = cm
            for key in list(out.keys()):
                if isinstance(out[key], LazyValue):
                    out[key] = out[key].get()
            return ObjLit(out, comments)
        if k == 'binop':
            a = self.eval(node.a, mod)
            b = self.eval(node.b, mod)
            if node.op == '+' and isinstance(a, str) and isinstance(b, str):
                return a + b
            if node.op in ('+', '-', '*', '/') and all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
                return {'+': a + b, '-': a - b, '*': a * b,
                        '/': (a / b if b else Unknown('division by zero'))}[node.op]
            return Unknown('binary expression %s' % node.op)
        if k == 'unary':
            a = self.eval(node.a, mod)
            if node.op == '-' and isinstance(a, (int, float)) and not isinstance(a, bool):
                return -a
            if node.op == '+' and isinstance(a, (int, float)) and not isinstance(a, bool):
                return a
            if node.op == '!' and isinstance(a, bool):
                return not a
            return Unknown('unary expression %s' % node.op)
        if k == 'arrow':
            return Func(node, mod)
        if k == 'spread':
            return Spread(self.eval(node.a, mod))
        if k == 'new':
            return Unknown('new-expression')
        if k == 'ternary':
            return Unknown('conditional expression')
        if k == 'tagged':
            return Unknown('tagged template')
        return Unknown('unsupported syntax %s' % k)

    def eval_list(self, nodes, mod):
        out = []
        for n in nodes:
            v = self.eval(n, mod)
            if isinstance(v, Spread):
                inner = v.value
                if isinstance(inner, list):
                    out.extend(inner)
                elif isinstance(inner, PartialList):
                    out.extend(inner.items)
                    out.append(inner.unknown)
                else:
                    out.append(inner if isinstance(inner, Unknown) else Unknown('spread of non-array'))
            else:
                out.append(v)
        return out

    def member(self, obj, name):
        if obj is ZNS:
            return ZFn(name)
        if isinstance(obj, ZFn) and obj.name == 'coerce':
            return ZFn('coerce.' + name)
        if isinstance(obj, ModuleNS):
            return obj.mod.lookup(name, self)
        if isinstance(obj, Schema):
            if name == 'shape':
                if obj.kind == 'object' and obj.shape is not None:
                    return ObjLit(OrderedDict(obj.shape), {})
                return Unknown('.shape of non-object')
            if name == 'element' and obj.kind == 'array':
                return obj.item
            if name == 'options' and obj.kind == 'union':
                return list(obj.options)
            return BoundMethod(obj, name)
        if isinstance(obj, dict):
            if name in obj:
                return obj[name]
            return Unknown('missing property %s' % name)
        if isinstance(obj, Unknown):
            return Unknown('%s (member %s)' % (obj.reason, name), obj.hints)
        return Unknown('member %s of %s' % (name, type(obj).__name__))

    def call(self, callee, args, node, mod):
        if isinstance(callee, ZFn):
            return self.zcall(callee.name, args, mod)
        if isinstance(callee, BoundMethod):
            return self.method(callee.schema, callee.name, args, mod)
        # ordinary function: unknown, but keep literal string arguments as hints
        hints = []
        for a in args:
            if isinstance(a, list):
                hints.extend(x for x in a if isinstance(x, str))
        fname = self.callee_name(node.callee)
        return Unknown('value computed by a function call %s(...)' % fname, hints)

    def callee_name(self, n):
        if n.kind == 'ident':
            return n.name
        if n.kind == 'member':
            return self.callee_name(n.obj) + '.' + n.name
        return '<expr>'

    # -- z.* constructors ----------------------------------------------------
    def zcall(self, name, args, mod):
        coerce = name.startswith('coerce.')
        if coerce:
            name = name[7:]
        a0 = args[0] if args else None
        if name in ('string', 'number', 'boolean', 'null', 'any', 'unknown',
                    'never', 'date', 'bigint', 'undefined', 'void', 'nan'):
            kind = {'bigint': 'number', 'nan': 'number', 'void': 'undefined'}.get(name, name)
            s = Schema(kind)
            if name == 'bigint':
                s.int = True
            if coerce:
                s.add_note('z.coerce: input is coerced to %s before validation' % name)
            return s
        if name == 'literal':
            if isinstance(a0, Unknown) or not isinstance(a0, (str, int, float, bool, type(None))):
                return unknown_schema('z.literal of a value that could not be computed')
            return Schema('literal', values=[a0])
        if name == 'enum':
            if isinstance(a0, ObjLit):
                a0 = list(a0.values())
            if not isinstance(a0, list):
                hints = a0.hints if isinstance(a0, Unknown) else []
                s = Schema('enum', values=[], values_complete=False)
                s.suggestions = hints
                s.add_note('enum values computed at run time (%s); not captured' %
                           (a0.reason if isinstance(a0, Unknown) else 'non-list'))
                return s
            known = [x for x in a0 if isinstance(x, str)]
            bad = [x for x in a0 if not isinstance(x, str)]
            s = Schema('enum', values=known)
            if bad:
                s.values_complete = False
                s.suggestions = known + [h for x in bad if isinstance(x, Unknown) for h in x.hints]
                reasons = sorted(set(x.reason for x in bad if isinstance(x, Unknown)))
                s.add_note('part of the enum values computed at run time (%s); enum not captured'
                           % '; '.join(reasons or ['non-string value']))
            return s
        if name == 'nativeEnum':
            return unknown_schema('z.nativeEnum not modelled')
        if name == 'array':
            s = Schema('array', item=as_schema(a0, 'array element'))
            return s
        if name in ('object', 'strictObject', 'looseObject'):
            return self.make_object(a0, 'object shape')
        if name == 'record':
            vs = args[-1] if args else None
            s = Schema('record', value_schema=as_schema(vs, 'record value'))
            return s
        if name == 'map' or name == 'set':
            return unknown_schema('z.%s not representable in JSON' % name)
        if name == 'tuple':
            items = a0 if isinstance(a0, list) else []
            s = Schema('tuple', options=[as_schema(x, 'tuple item') for x in items])
            if not isinstance(a0, list):
                s.add_note('tuple items could not be computed')
            return s
        if name in ('union', 'discriminatedUnion'):
            opts = args[1] if name == 'discriminatedUnion' and len(args) > 1 else a0
            return self.make_union(opts)
        if name == 'intersection':
            return self.make_intersection(args)
        if name == 'lazy':
            if isinstance(a0, Func):
                body = a0.eval_body(self)
                if isinstance(body, Unknown) and body.recursive:
                    return unknown_schema('recursive (z.lazy) schema')
                return as_schema(body, 'z.lazy body')
            return unknown_schema('z.lazy with non-function argument')
        if name == 'preprocess':
            inner = args[1] if len(args) > 1 else None
            s = as_schema(inner, 'z.preprocess inner schema').clone()
            s.add_note('input is preprocessed by a function before validation; '
                       'other input forms may be accepted')
            return s
        if name == 'custom':
            return unknown_schema('z.custom(): validated by a function')
        if name == 'instanceof':
            return Schema('instance', checks=OrderedDict(),
                          instance_of=(a0.reason.split()[-1] if isinstance(a0, Unknown) else '?'))
        if name == 'optional':
            s = as_schema(a0, 'z.optional').clone()
            s.optional = True
            return s
        if name == 'nullable':
            s = as_schema(a0, 'z.nullable').clone()
            s.nullable = True
            return s
        if name == 'coerce':
            return ZFn('coerce')
        return Unknown('unsupported zod function z.%s' % name)

    def make_object(self, shape_val, what):
        if not isinstance(shape_val, dict):
            s = Schema('object', shape=OrderedDict())
            s.add_note('%s could not be computed' % what)
            return s
        shape = OrderedDict()
        s = Schema('object', shape=shape)
        comments = getattr(shape_val, 'comments', {})
        for k, v in shape_val.items():
            if k.startswith('\0'):
                s.add_note('object shape has keys that could not be computed')
                continue
            sch = as_schema(v, 'parameter %s' % k)
            cm = comment_description(comments.get(k))
            if cm and not sch.description:
                sch = sch.clone()
                sch.comment = cm
            shape[k] = sch
        return s

    def make_union(self, opts):
        if not isinstance(opts, list):
            return unknown_schema('union options could not be computed')
        options = []
        s = Schema('union', options=options)
        for o in opts:
            o = as_schema(o, 'union option')
            if o.kind == 'union' and not o.has_default:
                options.extend(o.options)
                s.nullable = s.nullable or o.nullable
                s.optional = s.optional or o.optional
                for n in o.notes:
                    s.add_note(n)
            elif o.kind == 'null':
                s.nullable = True
            elif o.kind == 'undefined':
                s.optional = True
            else:
                options.append(o)
        return s

    def make_intersection(self, args):
        parts = [as_schema(a, 'intersection part') for a in args]
        if parts and all(p.kind == 'object' for p in parts):
            s = parts[0].clone()
            for p in parts[1:]:
                s.shape.update(p.shape)
            return s
        return unknown_schema('intersection of non-object schemas')

    # -- schema methods ------------------------------------------------------
    def method(self, s, name, args, mod):
        a0 = args[0] if args else None
        c = s.clone()
        num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
        if name == 'optional':
            c.optional = True
        elif name == 'nullable':
            c.nullable = True
        elif name == 'nullish':
            c.optional = True
            c.nullable = True
        elif name == 'default':
            if isinstance(a0, Func):
                c.has_default = True
                c.default = Unknown('default computed by a function')
                c.add_note('default computed by a function; not captured')
            elif isinstance(a0, Unknown):
                c.has_default = True
                c.default = a0
                c.add_note('default value could not be computed (%s)' % a0.reason)
            else:
                c.has_default = True
                c.default = to_json(a0)
        elif name == 'describe':
            c.description = a0 if isinstance(a0, str) else None
            if not isinstance(a0, str):
                c.add_note('description could not be computed')
        elif name == 'int':
            c.int = True
        elif name in ('min', 'gte', 'max', 'lte', 'gt', 'lt', 'length'):
            if not num(a0):
                c.add_note('.%s() bound could not be computed' % name)
                return c
            if c.kind == 'number':
                key = {'min': 'minimum', 'gte': 'minimum', 'max': 'maximum', 'lte': 'maximum',
                       'gt': 'exclusiveMinimum', 'lt': 'exclusiveMaximum'}.get(name)
                if key is None:
                    c.add_note('.length() on number ignored')
                else:
                    c.checks[key] = a0
            elif c.kind in ('string', 'array', 'enum'):
                unit = 'Length' if c.kind != 'array' else 'Items'
                key = {'min': 'min', 'gte': 'min', 'max': 'max', 'lte': 'max',
                       'length': 'len'}.get(name)
                if key == 'len':
                    c.checks['minLength' if unit == 'Length' else 'minItems'] = a0
                    c.checks['maxLength' if unit == 'Length' else 'maxItems'] = a0
                elif key:
                    c.checks[key + unit] = a0
                else:
                    c.add_note('.%s() not modelled on %s' % (name, c.kind))
            else:
                c.add_note('.%s(%s) on %s not modelled' % (name, a0, c.kind))
        elif name == 'positive':
            c.checks['exclusiveMinimum'] = 0
        elif name == 'nonnegative':
            c.checks['minimum'] = 0
        elif name == 'negative':
            c.checks['exclusiveMaximum'] = 0
        elif name == 'nonpositive':
            c.checks['maximum'] = 0
        elif name == 'nonempty':
            c.checks['minItems' if c.kind == 'array' else 'minLength'] = 1
        elif name in ('multipleOf', 'step'):
            if num(a0):
                c.checks['multipleOf'] = a0
        elif name in ('finite', 'safe', 'strict', 'strip', 'brand', 'readonly', 'trim',
                      'toLowerCase', 'toUpperCase', 'removeDefault', 'catch', 'pipe',
                      'describe_', 'passthrough', 'catchall'):
            if name == 'passthrough':
                c.passthrough = True
            if name == 'removeDefault':
                c.has_default = False
                c.default = None
            if name == 'pipe':
                c.add_note('output is piped into a further schema; not modelled')
        elif name == 'regex':
            if isinstance(a0, Regex):
                pats = c.checks.get('pattern')
                if pats is None:
                    c.checks['pattern'] = a0.pattern
                else:
                    c.checks['pattern'] = [pats] if isinstance(pats, str) else pats
                    c.checks['pattern'] = c.checks['pattern'] + [a0.pattern]
            else:
                c.add_note('regex could not be computed')
        elif name in ('url', 'email', 'uuid', 'cuid', 'cuid2', 'ulid', 'datetime', 'date',
                      'time', 'ip', 'emoji', 'base64', 'duration', 'cidr', 'jwt', 'nanoid'):
            c.checks['format'] = name
        elif name in ('startsWith', 'endsWith', 'includes'):
            if isinstance(a0, str):
                c.checks[name] = a0
        elif name == 'transform':
            pass    # output mapping only; the accepted input is unchanged
        elif name in ('refine', 'superRefine', 'check'):
            c.add_note('additional run-time check (.%s) not captured' % name)
        elif name in ('extend', 'merge', 'augment', 'setKey'):
            if c.kind != 'object':
                return unknown_schema('.%s() on non-object schema' % name)
            if name == 'merge':
                other = as_schema(a0, 'merge argument')
                if other.kind != 'object':
                    c.add_note('merged schema could not be computed')
                    return c
                add = other.shape
            elif name == 'setKey':
                add = OrderedDict([(a0, as_schema(args[1], 'setKey'))])
            else:
                add = self.make_object(a0, 'extend argument').shape
            for k, v in add.items():
                c.shape[k] = v
        elif name in ('pick', 'omit'):
            if c.kind != 'object' or not isinstance(a0, dict):
                return unknown_schema('.%s() could not be applied' % name)
            keys = set(k for k, v in a0.items() if v is True)
            c.shape = OrderedDict((k, v) for k, v in c.shape.items()
                                  if (k in keys) == (name == 'pick'))
        elif name in ('partial', 'deepPartial'):
            if c.kind == 'object':
                sel = set(k for k, v in a0.items() if v is True) if isinstance(a0, dict) else None
                for k, v in list(c.shape.items()):
                    if sel is None or k in sel:
                        v = v.clone()
                        v.optional = True
                        c.shape[k] = v
        elif name == 'required':
            if c.kind == 'object':
                for k, v in list(c.shape.items()):
                    v = v.clone()
                    v.optional = False
                    c.shape[k] = v
        elif name == 'array':
            return Schema('array', item=s)
        elif name == 'or':
            return self.make_union([s, a0])
        elif name == 'and':
            return self.make_intersection([s, a0])
        elif name == 'unwrap':
            c.optional = False
            c.nullable = False
        elif name == 'keyof':
            if c.kind == 'object':
                return Schema('enum', values=list(c.shape.keys()))
            return unknown_schema('.keyof() on non-object')
        else:
            return unknown_schema('unsupported zod method .%s()' % name)
        return c


class ObjLit(OrderedDict):
    """An evaluated object literal; remembers comments above each key."""

    def __init__(self, items, comments):
        OrderedDict.__init__(self, items)
        self.comments = comments


class LazyValue(object):
    def __init__(self, ev, node, mod):
        self.ev, self.node, self.mod = ev, node, mod

    def get(self):
        return self.ev.eval(self.node, self.mod)


class PartialList(object):
    def __init__(self, items, unknown):
        self.items = items
        self.unknown = unknown


class Spread(object):
    def __init__(self, value):
        self.value = value


class Func(object):
    def __init__(self, node, mod):
        self.node = node
        self.mod = mod

    def eval_body(self, ev):
        if self.node.range is None:
            return Unknown('function body')
        p = self.node.parser
        s, e = self.node.range
        toks = p.t[s:e] + [Tok('eof', None, 0, 0, True, [])]
        if toks[0].is_p('{'):
            return Unknown('function with block body')
        try:
            sub = Parser(toks, p.src)
            n = sub.parse_expr()
            if sub.peek().kind != 'eof':
                return Unknown('function body not a single expression')
        except TSyntaxError as exc:
            return Unknown('function body could not be parsed (%s)' % exc)
        return ev.eval(n, self.mod)


def to_json(v):
    if isinstance(v, dict):
        return OrderedDict((k, to_json(x)) for k, x in v.items())
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, Unknown):
        return v
    return Unknown('non-JSON value')


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

MAX_DEPTH = 6


def json_type_of_value(v):
    if isinstance(v, bool):
        return 'boolean'
    if isinstance(v, int):
        return 'integer'
    if isinstance(v, float):
        return 'integer' if v.is_integer() else 'number'
    if isinstance(v, str):
        return 'string'
    return 'any'


def _vkey(v):
    """Comparison key that keeps booleans apart from 0/1 (False == 0 in Python)."""
    return (type(v) is bool, json.dumps(v, sort_keys=True))


def contains(seq, v):
    return any(_vkey(x) == _vkey(v) for x in seq)


def has_unknown(v):
    if isinstance(v, Unknown):
        return True
    if isinstance(v, dict):
        return any(has_unknown(x) for x in v.values())
    if isinstance(v, list):
        return any(has_unknown(x) for x in v)
    return False


class Emitter(object):
    def __init__(self):
        self.untyped = []     # (robot, path, reason)
        self.noted = []       # (robot, path, note)

    def types_of(self, s):
        k = s.kind
        if k == 'string' or k == 'enum' or k == 'date':
            return ['string']
        if k == 'number':
            return ['integer' if s.int else 'number']
        if k == 'boolean':
            return ['boolean']
        if k == 'literal':
            v = s.values[0]
            return [] if v is None else [json_type_of_value(v)]
        if k in ('array', 'tuple'):
            return ['array']
        if k in ('object', 'record'):
            return ['object']
        if k in ('null', 'undefined', 'instance', 'never'):
            return []
        if k == 'union':
            out = []
            for o in s.options:
                for t in self.types_of(o):
                    if t not in out:
                        out.append(t)
            if 'any' in out:
                return ['any']
            if 'integer' in out and 'number' in out:
                out.remove('integer')
            return out
        return ['any']

    def finite_values(self, s):
        """Closed value set of a schema, or None."""
        if s.kind in ('literal', 'enum'):
            return list(s.values) if s.values_complete else None
        if s.kind == 'boolean':
            return [True, False]
        if s.kind == 'union':
            vals = []
            saw_enum = False
            for o in s.options:
                if o.kind in ('instance',):
                    continue
                fv = self.finite_values(o)
                if fv is None:
                    return None
                if o.kind != 'boolean':
                    saw_enum = True
                for v in fv:
                    if not contains(vals, v):
                        vals.append(v)
            return vals if saw_enum else None
        return None

    def open_suggestions(self, s):
        """Known values of an open union (some finite parts, some open)."""
        vals = []
        if s.kind == 'union':
            for o in s.options:
                if o.kind in ('literal', 'enum'):
                    vals.extend(o.values if o.values_complete else (o.suggestions or []))
                elif o.suggestions:
                    vals.extend(o.suggestions)
        elif s.suggestions:
            vals = list(s.suggestions)
        out = []
        for v in vals:
            if not contains(out, v):
                out.append(v)
        return out

    def describe(self, s, ctx, path, depth=0, top=False):
        d = OrderedDict()
        types = self.types_of(s)
        if s.kind == 'union' and not types:
            types = ['any']
        if not types:
            types = ['any']
        d['type'] = types[0] if len(types) == 1 else types
        fv = self.finite_values(s)
        if fv is not None and not (s.kind == 'boolean'):
            d['enum'] = fv
        else:
            sug = self.open_suggestions(s)
            if sug:
                d['suggestions'] = sug
        for key, val in s.checks.items():
            d[key] = val
        if s.has_default:
            if has_unknown(s.default):
                pass  # note already added
            else:
                d['default'] = s.default
        if s.nullable:
            d['nullable'] = True
        if top and not s.optional and not s.has_default and s.kind not in ('any', 'unknown'):
            d['required'] = True
        desc = first_line(s.description) or s.comment
        if desc:
            d['description'] = desc
        if depth < MAX_DEPTH:
            if s.kind == 'array' and s.item is not None:
                d['items'] = self.describe(s.item, ctx, path + '[]', depth + 1)
            elif s.kind == 'tuple':
                d['prefixItems'] = [self.describe(o, ctx, path + '[%d]' % i, depth + 1)
                                    for i, o in enumerate(s.options)]
            elif s.kind == 'object' and s.shape is not None:
                props = OrderedDict()
                for k, v in s.shape.items():
                    props[k] = self.describe(v, ctx, path + '.' + k, depth + 1, top=True)
                d['properties'] = props
                if getattr(s, 'passthrough', False):
                    d['additionalProperties'] = True
            elif s.kind == 'record' and s.value_schema is not None:
                d['values'] = self.describe(s.value_schema, ctx, path + '{}', depth + 1)
            elif s.kind == 'union':
                opts = [o for o in s.options if o.kind != 'instance']
                dropped = [o for o in s.options if o.kind == 'instance']
                if dropped:
                    s.add_note('non-JSON alternative(s) %s omitted' %
                               ', '.join('instanceof(%s)' % getattr(o, 'instance_of', '?')
                                         for o in dropped))
                if len(opts) > 1:
                    subs = []
                    for i, o in enumerate(opts):
                        sd = self.describe(o, ctx, path + '|%d' % i, depth)
                        sd.pop('description', None)
                        if not contains(subs, sd):
                            subs.append(sd)
                    flat = OrderedDict((k, v) for k, v in d.items()
                                       if k in ('type', 'enum'))
                    if len(subs) > 1 and not all(set(x.keys()) <= {'type', 'enum'} and
                                                 self._covered(x, flat) for x in subs):
                        d['anyOf'] = subs
                    elif len(subs) > 1 and 'enum' not in d:
                        d['anyOf'] = subs
        elif s.kind in ('array', 'object', 'record', 'tuple', 'union'):
            s.add_note('nested structure deeper than %d levels not expanded' % MAX_DEPTH)
        if s.origin and top and depth == 0:
            d['shared_from'] = s.origin
        notes = list(s.notes)
        if s.unknown_reason:
            self.untyped.append((ctx, path, s.unknown_reason))
        elif notes:
            for n in notes:
                self.noted.append((ctx, path, n))
        if notes:
            d['notes'] = notes
        return d

    @staticmethod
    def _covered(sub, flat):
        t = sub.get('type')
        ft = flat.get('type')
        ftypes = ft if isinstance(ft, list) else [ft]
        ttypes = t if isinstance(t, list) else [t]
        if not set(ttypes) <= set(ftypes):
            return False
        if 'enum' in sub:
            return 'enum' in flat and all(contains(flat['enum'], v) for v in sub['enum'])
        return 'enum' not in flat


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

CANDIDATE_DIRS = ['packages/node/src/alphalib/types/robots', 'src/alphalib/types/robots',
                  'alphalib/types/robots', 'types/robots', 'robots']


def find_tree(path, rev):
    path = os.path.abspath(path)
    # bare git dir?
    if os.path.isfile(os.path.join(path, 'HEAD')) and os.path.isdir(os.path.join(path, 'objects')):
        tree = SourceTree(None, git_dir=path, rev=rev)
        for cand in CANDIDATE_DIRS:
            tree.root = cand
            try:
                if '_instructions-primitives.ts' in tree.list_ts():
                    return tree, cand
            except subprocess.CalledProcessError:
                continue
        raise SystemExit('robots folder not found in git dir %s' % path)
    if os.path.isfile(os.path.join(path, '_instructions-primitives.ts')):
        return SourceTree(path), None
    for cand in CANDIDATE_DIRS:
        p = os.path.join(path, cand)
        if os.path.isfile(os.path.join(p, '_instructions-primitives.ts')):
            return SourceTree(p), cand
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if d not in ('node_modules', '.git', 'dist')]
        if '_instructions-primitives.ts' in filenames:
            return SourceTree(dirpath), os.path.relpath(dirpath, path)
    raise SystemExit('no folder with _instructions-primitives.ts found under %s' % path)


def git_commit(path, tree, rev):
    try:
        if tree.git_dir:
            return tree._git('rev-parse', rev).strip()
        out = subprocess.run(['git', '-C', path, 'rev-parse', 'HEAD'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        if out.returncode == 0:
            return out.stdout.decode().strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('path')
    ap.add_argument('-o', '--output', default='robots.json')
    ap.add_argument('--commit', default=None, help='commit sha to record if not detectable')
    ap.add_argument('--rev', default='HEAD', help='revision to read from a bare git dir')
    ap.add_argument('--summary', default=None, help='write diagnostics as JSON here')
    args = ap.parse_args(argv)

    tree, relroot = find_tree(args.path, args.rev)
    commit = git_commit(args.path, tree, args.rev) or args.commit
    loader = Loader(tree)
    ev = Evaluator()
    em = Emitter()

    robots = OrderedDict()
    shared = OrderedDict()
    failures = []
    files = [f for f in tree.list_ts() if not f.startswith('_')]

    # which robot modules are listed in the public union of _index.ts
    public_files = None
    index = loader.module('_index.ts')
    if index is not None and 'robotStepsInstructions' in index.bindings:
        node = index.bindings['robotStepsInstructions']
        if isinstance(node, Node) and node.kind == 'array':
            public_files = set()
            for item in node.items:
                if item.kind == 'ident' and item.name in index.imports:
                    public_files.add(os.path.basename(index.imports[item.name][0]))

    for fname in files:
        mod = loader.module(fname)
        cand = [n for n in mod.bindings
                if re.match(r'^robot\w*InstructionsSchema$', n) and 'WithHidden' not in n]
        schema = None
        for n in cand:
            v = mod.lookup(n, ev)
            if isinstance(v, Schema) and v.kind == 'object' and 'robot' in v.shape:
                schema = v
                break
        if schema is None:
            failures.append((fname, 'no robot<Name>InstructionsSchema object with a robot key; '
                             'parse errors: %s' % (mod.parse_errors or 'none')))
            continue
        rlit = schema.shape['robot']
        if rlit.kind != 'literal' or not isinstance(rlit.values[0], str):
            failures.append((fname, 'robot key is not a string literal'))
            continue
        rname = rlit.values[0]
        meta = mod.lookup('meta', ev) if 'meta' in mod.bindings else None
        entry = OrderedDict()
        title = meta.get('title') if isinstance(meta, dict) else None
        entry['title'] = first_line(title) if isinstance(title, str) else None
        if isinstance(meta, dict):
            if isinstance(meta.get('purpose_sentence'), str):
                entry['summary'] = first_line(meta['purpose_sentence'])
            if isinstance(meta.get('stage'), str):
                entry['stage'] = meta['stage']
            if isinstance(meta.get('isInternal'), bool):
                entry['internal'] = meta['isInternal']
        if public_files is not None:
            entry['in_public_schema_union'] = fname in public_files
        entry['source_file'] = fname
        params = OrderedDict()
        used_shared = []
        for pname, psch in schema.shape.items():
            if pname == 'robot':
                continue
            params[pname] = em.describe(psch, rname, pname, top=True)
            if psch.origin:
                if psch.origin not in used_shared:
                    used_shared.append(psch.origin)
                grp = shared.setdefault(psch.origin, [])
                if pname not in grp:
                    grp.append(pname)
        entry['shared_groups'] = used_shared
        entry['parameters'] = params
        if rname in robots:
            failures.append((fname, 'duplicate robot name %s' % rname))
        robots[rname] = entry

    robots = OrderedDict(sorted(robots.items()))
    out = OrderedDict()
    out['version'] = 1
    out['source'] = OrderedDict([
        ('repository', 'transloadit/node-sdk'),
        ('commit', commit),
        ('path', relroot or 'src/alphalib/types/robots'),
    ])
    out['conventions'] = OrderedDict([
        ('shared_parameters', 'inlined in every robot; "shared_from" names the building block '
                              'of _instructions-primitives.ts it comes from; the top-level '
                              '"shared" section lists those blocks'),
        ('excluded', 'the "robot" discriminator key; hidden/legacy WithHiddenFields keys'),
        ('interpolation', 'not modelled: at run time most fields also accept "${...}" '
                          'Assembly Variables (interpolateRobot wrapper)'),
    ])
    out['shared'] = OrderedDict(sorted(shared.items()))
    out['robots'] = robots
    with open(args.output, 'w', encoding='utf-8') as f:
        json.dump(out, f, indent=2, ensure_ascii=False)
        f.write('\n')

    nparams = sum(len(r['parameters']) for r in robots.values())
    summary = OrderedDict([
        ('commit', commit),
        ('robots', len(robots)),
        ('parameters', nparams),
        ('files_failed', failures),
        ('untyped', [list(x) for x in em.untyped]),
        ('notes', [list(x) for x in em.noted]),
        ('parse_errors', {m.relpath: m.parse_errors for m in loader.modules.values()
                          if m is not None and m.parse_errors}),
    ])
    if args.summary:
        with open(args.summary, 'w', encoding='utf-8') as f:
            json.dump(summary, f, indent=2, ensure_ascii=False)
            f.write('\n')
    print('robots: %d, parameters: %d, untyped entries: %d, entries with notes: %d, '
          'failed files: %d' % (len(robots), nparams, len(em.untyped),
                                len(set((r, p) for r, p, _ in em.noted)), len(failures)))
    for f, why in failures:
        print('  FAILED %s: %s' % (f, why), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
