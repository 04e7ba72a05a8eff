"""Time-function expressions such as ``"3.0*t"`` or ``"0.5*sin(2*pi*t)"``, parsed safely.

The text is parsed with :mod:`ast` and every node is checked against a whitelist:
numbers, the variable ``t`` [s], the constants ``pi``, ``e`` and ``tau``, the operators
``+ - * / **`` and unary ``-``/``+``, and the functions in :data:`FUNCTIONS`.  Nothing
is ever passed to ``eval``; the checked tree is turned into a small expression tree of
our own, differentiated symbolically (so f' and f'' are exact, as drivers need Φ_t and
Φ_tt), simplified and compiled into closures.

    >>> f = ExpressionFunction("0.5*sin(2*pi*t)")
    >>> f.derivatives(0.0)
    (0.0, 3.141592653589793, -0.0)

``min``/``max`` differentiate along the active branch, ``abs`` as sign(u)·u', and
``sign``/``step`` have zero derivative (their jump is not represented).
"""
from __future__ import annotations

import ast
import difflib
import math
import operator

from .timefunctions import TimeFunction

#: Longest expression text accepted, and deepest nesting of its tree.
MAX_LENGTH = 500
MAX_DEPTH = 60

CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _sign(x):
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


def _step(x):
    return 1.0 if x >= 0 else 0.0


#: name -> (function of floats, number of arguments; None = two or more)
FUNCTIONS = {
    "sin": (math.sin, 1), "cos": (math.cos, 1), "tan": (math.tan, 1),
    "asin": (math.asin, 1), "acos": (math.acos, 1), "atan": (math.atan, 1),
    "sinh": (math.sinh, 1), "cosh": (math.cosh, 1), "tanh": (math.tanh, 1),
    "exp": (math.exp, 1), "log": (math.log, 1), "sqrt": (math.sqrt, 1),
    "abs": (abs, 1), "sign": (_sign, 1), "step": (_step, 1),
    "min": (None, None), "max": (None, None),
}

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
           "pow": math.pow}
_AST_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}


class ExpressionError(ValueError):
    """An expression that is not allowed, does not parse, or cannot be evaluated."""


# ------------------------------------------------------------------ tree
# Nodes are tuples: ("num", v), ("var", name), (op, a, b) for the binary ops, ("neg", a),
# ("call", name, a), ("le", a, b, x, y) meaning x if a <= b else y (min, max).

ZERO, ONE, TWO = ("num", 0.0), ("num", 1.0), ("num", 2.0)


def _is_num(n, v=None):
    return n[0] == "num" and (v is None or n[1] == v)


def _fold(fn, *args, what):
    try:
        v = float(fn(*args))
    except (ArithmeticError, ValueError) as exc:
        raise ExpressionError(f"{what} is undefined ({_reason(exc)})") from None
    if not math.isfinite(v):
        raise ExpressionError(f"{what} is not finite")
    return ("num", v)


def add(a, b):
    if _is_num(a, 0.0):
        return b
    if _is_num(b, 0.0):
        return a
    if _is_num(a) and _is_num(b):
        return _fold(operator.add, a[1], b[1], what="a sum")
    return ("add", a, b)


def sub(a, b):
    if _is_num(b, 0.0):
        return a
    if _is_num(a, 0.0):
        return neg(b)
    if _is_num(a) and _is_num(b):
        return _fold(operator.sub, a[1], b[1], what="a difference")
    return ("sub", a, b)


def mul(a, b):
    if _is_num(a, 0.0) or _is_num(b, 0.0):
        return ZERO
    if _is_num(a, 1.0):
        return b
    if _is_num(b, 1.0):
        return a
    if _is_num(a) and _is_num(b):
        return _fold(operator.mul, a[1], b[1], what="a product")
    return ("mul", a, b)


def div(a, b):
    if _is_num(b, 1.0):
        return a
    if _is_num(b) and b[1] == 0.0:
        raise ExpressionError("division by zero")
    if _is_num(a, 0.0):
        return ZERO
    if _is_num(a) and _is_num(b):
        return _fold(operator.truediv, a[1], b[1], what="a quotient")
    return ("div", a, b)


def neg(a):
    if _is_num(a):
        return ("num", -a[1])
    if a[0] == "neg":
        return a[1]
    return ("neg", a)


def power(a, b):
    if _is_num(b, 0.0):
        return ONE
    if _is_num(b, 1.0):
        return a
    if _is_num(a) and _is_num(b):
        return _fold(math.pow, a[1], b[1], what=f"{a[1]:g} ** {b[1]:g}")
    return ("pow", a, b)


def call(name, a):
    if _is_num(a):
        return _fold(FUNCTIONS[name][0], a[1], what=f"{name}({a[1]:g})")
    return ("call", name, a)


def where_le(a, b, x, y):
    """x if a <= b else y."""
    if x == y:
        return x
    if _is_num(a) and _is_num(b):
        return x if a[1] <= b[1] else y
    return ("le", a, b, x, y)


def depends_on(n, var=None) -> bool:
    """Whether the tree contains variable ``var`` (any variable if None)."""
    op = n[0]
    if op == "var":
        return var is None or n[1] == var
    if op == "num":
        return False
    if op == "call":
        return depends_on(n[2], var)
    return any(depends_on(c, var) for c in n[1:])


# ------------------------------------------------------------------ parse


def _reason(exc):
    msg = str(exc) or type(exc).__name__
    return {"math domain error": "outside the function's domain", "float division by zero": "division by zero",
            "Result too large": "overflow", "math range error": "overflow"}.get(msg, msg)


def _suggest(name, choices):
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def parse(text, variables=("t",)) -> tuple:
    """Check and convert an expression text into an expression tree (see module doc).

    ``variables``: the names the expression may use (``t`` for time functions).
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be a string, got {type(text).__name__}")
    s = text.strip()
    if not s:
        raise ExpressionError("the expression is empty")
    if len(s) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(s, mode="eval")
    except SyntaxError as exc:
        where = f" at column {exc.offset}" if exc.offset else ""
        raise ExpressionError(f"{text!r} is not a valid expression ({exc.msg}{where})") from None
    except (ValueError, RecursionError, MemoryError):
        raise ExpressionError(f"{text!r} is not a valid expression") from None
    try:
        return _convert(tree.body, text, 0, tuple(variables))
    except RecursionError:
        raise ExpressionError(f"{text!r} is nested too deeply") from None
    except ExpressionError as exc:
        if repr(text) in str(exc):
            raise
        raise ExpressionError(f"{text!r}: {exc}") from None


def _convert(node, text, depth, variables):
    if depth > MAX_DEPTH:
        raise ExpressionError(f"{text!r} is nested too deeply (more than {MAX_DEPTH} levels)")
    d = depth + 1
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ExpressionError(f"{text!r}: {v!r} is not allowed; only numbers, t, pi, e and functions")
        try:
            v = float(v)
        except OverflowError:
            raise ExpressionError(f"{text!r}: the number {str(node.value)[:20]}... is too large") from None
        if not math.isfinite(v):
            raise ExpressionError(f"{text!r}: numbers must be finite")
        return ("num", v)
    if isinstance(node, ast.Name):
        if node.id in variables:
            return ("var", node.id)
        if node.id in CONSTANTS:
            return ("num", CONSTANTS[node.id])
        hint = _suggest(node.id, [*variables, *CONSTANTS, *FUNCTIONS])
        if node.id in FUNCTIONS:
            raise ExpressionError(f"{text!r}: function {node.id!r} must be called, as in {node.id}({variables[0]})")
        known = "the variable is t" if variables == ("t",) else "variables: " + ", ".join(variables)
        raise ExpressionError(f"{text!r}: unknown name {node.id!r} ({known}){hint}")
    if isinstance(node, ast.BinOp):
        op = _AST_BINOPS.get(type(node.op))
        if op is None:
            hint = "; use ** for powers" if isinstance(node.op, ast.BitXor) else ""
            raise ExpressionError(f"{text!r}: operator {_op_name(node.op)} is not allowed{hint}")
        a, b = _convert(node.left, text, d, variables), _convert(node.right, text, d, variables)
        return {"add": add, "sub": sub, "mul": mul, "div": div, "pow": power}[op](a, b)
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.USub):
            return neg(_convert(node.operand, text, d, variables))
        if isinstance(node.op, ast.UAdd):
            return _convert(node.operand, text, d, variables)
        raise ExpressionError(f"{text!r}: operator {_op_name(node.op)} is not allowed")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):
            raise ExpressionError(f"{text!r}: only the functions {', '.join(FUNCTIONS)} can be called")
        name = node.func.id
        if name not in FUNCTIONS:
            raise ExpressionError(f"{text!r}: unknown function {name!r}{_suggest(name, list(FUNCTIONS))}")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"{text!r}: {name}() takes plain arguments only")
        arity = FUNCTIONS[name][1]
        args = [_convert(a, text, d, variables) for a in node.args]
        if arity is None:
            if len(args) < 2:
                raise ExpressionError(f"{text!r}: {name}() needs at least two arguments")
            out = args[0]
            for b in args[1:]:
                out = where_le(out, b, out, b) if name == "min" else where_le(out, b, b, out)
            return out
        if len(args) != arity:
            raise ExpressionError(f"{text!r}: {name}() takes exactly {arity} argument, got {len(args)}")
        return call(name, args[0])
    raise ExpressionError(f"{text!r}: {_node_name(node)} is not allowed in an expression "
                          "(numbers, t, pi, e, + - * / **, and functions only)")


def _op_name(op):
    return {ast.BitXor: "^", ast.Mod: "%", ast.FloorDiv: "//", ast.MatMult: "@", ast.BitAnd: "&",
            ast.BitOr: "|", ast.LShift: "<<", ast.RShift: ">>", ast.Invert: "~", ast.Not: "not"}.get(
        type(op), type(op).__name__)


def _node_name(node):
    names = {ast.Compare: "a comparison", ast.Attribute: "attribute access", ast.Subscript: "indexing",
             ast.Lambda: "lambda", ast.BoolOp: "and/or", ast.IfExp: "if-else", ast.List: "a list",
             ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "an f-string"}
    return names.get(type(node), type(node).__name__)


# ------------------------------------------------------------------ derivative


def derivative(n, var="t") -> tuple:
    """∂/∂var of an expression tree (symbolic, simplified)."""
    op = n[0]
    if op == "num":
        return ZERO
    if op == "var":
        return ONE if n[1] == var else ZERO
    if op in ("add", "sub"):
        return (add if op == "add" else sub)(derivative(n[1], var), derivative(n[2], var))
    if op == "neg":
        return neg(derivative(n[1], var))
    if op == "mul":
        a, b = n[1], n[2]
        return add(mul(derivative(a, var), b), mul(a, derivative(b, var)))
    if op == "div":
        a, b = n[1], n[2]
        return sub(div(derivative(a, var), b), div(mul(a, derivative(b, var)), mul(b, b)))
    if op == "pow":
        a, b = n[1], n[2]
        if not depends_on(b, var):
            return mul(mul(b, power(a, sub(b, ONE))), derivative(a, var))
        if not depends_on(a, var):
            return mul(mul(n, call("log", a)), derivative(b, var))
        return mul(n, add(mul(derivative(b, var), call("log", a)), div(mul(b, derivative(a, var)), a)))
    if op == "le":
        return where_le(n[1], n[2], derivative(n[3], var), derivative(n[4], var))
    if op == "call":
        f, u = n[1], n[2]
        du = derivative(u, var)
        if _is_num(du, 0.0) or f in ("sign", "step"):
            return ZERO
        if f == "sin":
            g = call("cos", u)
        elif f == "cos":
            g = neg(call("sin", u))
        elif f == "tan":
            g = add(ONE, power(n, TWO))
        elif f == "exp":
            g = n
        elif f == "log":
            return div(du, u)
        elif f == "sqrt":
            return div(du, mul(TWO, n))
        elif f == "abs":
            g = call("sign", u)
        elif f == "asin":
            return div(du, call("sqrt", sub(ONE, power(u, TWO))))
        elif f == "acos":
            return neg(div(du, call("sqrt", sub(ONE, power(u, TWO)))))
        elif f == "atan":
            return div(du, add(ONE, power(u, TWO)))
        elif f == "sinh":
            g = call("cosh", u)
        elif f == "cosh":
            g = call("sinh", u)
        elif f == "tanh":
            g = sub(ONE, power(n, TWO))
        else:  # pragma: no cover - every function is handled above
            raise ExpressionError(f"cannot differentiate {f}")
        return mul(g, du)
    raise ExpressionError(f"cannot differentiate node {op!r}")  # pragma: no cover


# ------------------------------------------------------------------ evaluation


def compile_tree(n, variables=("t",)):
    """A closure f(*values) -> float evaluating the tree with ``variables`` bound to the
    arguments in order (it raises ArithmeticError or ValueError where undefined)."""
    g = _compile(n, {v: i for i, v in enumerate(variables)})
    return lambda *x: g(x)


def _compile(n, index):
    op = n[0]
    if op == "num":
        v = n[1]
        return lambda x: v
    if op == "var":
        i = index[n[1]]
        return lambda x: x[i]
    if op in _BINARY:
        fa, fb, f = _compile(n[1], index), _compile(n[2], index), _BINARY[op]
        return lambda x: f(fa(x), fb(x))
    if op == "neg":
        fa = _compile(n[1], index)
        return lambda x: -fa(x)
    if op == "call":
        fa, f = _compile(n[2], index), FUNCTIONS[n[1]][0]
        return lambda x: f(fa(x))
    if op == "le":
        fa, fb, fx, fy = (_compile(c, index) for c in n[1:])
        return lambda x: fx(x) if fa(x) <= fb(x) else fy(x)
    raise ExpressionError(f"cannot compile node {op!r}")  # pragma: no cover


def to_text(n) -> str:
    """Readable text of a tree (fully parenthesised)."""
    op = n[0]
    if op == "num":
        return repr(n[1]) if n[1] >= 0 else f"({n[1]!r})"
    if op == "var":
        return n[1]
    if op in _BINARY:
        sym = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}[op]
        return f"({to_text(n[1])} {sym} {to_text(n[2])})"
    if op == "neg":
        return f"(-{to_text(n[1])})"
    if op == "call":
        return f"{n[1]}({to_text(n[2])})"
    if op == "le":       # written back in the parser's own language (min/max, else with step)
        a, b, x, y = n[1:]
        if (x, y) == (a, b):
            return f"min({to_text(a)}, {to_text(b)})"
        if (x, y) == (b, a):
            return f"max({to_text(a)}, {to_text(b)})"
        s = f"step({to_text(b)} - {to_text(a)})"
        return f"({s}*{to_text(x)} + (1 - {s})*{to_text(y)})"
    return "?"  # pragma: no cover


def _evaluate(fs, args, text, labels, at):
    out = []
    for f, what in zip(fs, labels):
        try:
            v = float(f(*args))
        except (ArithmeticError, ValueError, RecursionError) as exc:
            raise ExpressionError(f"{what} {text!r} cannot be evaluated at {at} ({_reason(exc)})") from None
        if not math.isfinite(v):
            raise ExpressionError(f"{what} {text!r} is not finite at {at}")
        out.append(v)
    return tuple(out)


class ExpressionFunction(TimeFunction):
    """A :class:`~flexmbd.timefunctions.TimeFunction` given by an expression text in t.

    ``derivatives(t)`` returns exact (f, f', f''); it raises :class:`ExpressionError`
    if the expression cannot be evaluated at t or is not finite there.
    """

    _labels = ("the expression", "the first derivative of", "the second derivative of")

    def __init__(self, text: str):
        self.text = text
        tree = parse(text)
        try:
            d1 = derivative(tree)
            d2 = derivative(d1)
            self._f = tuple(compile_tree(x) for x in (tree, d1, d2))
        except RecursionError:
            raise ExpressionError(f"{text!r} is too complex") from None
        self.tree = tree
        self.constant = not depends_on(tree)

    def derivatives(self, t):
        t = float(t)
        return _evaluate(self._f, (t,), self.text, self._labels, f"t = {t:g} s")

    def __repr__(self):
        return f"ExpressionFunction({self.text!r})"

    def __eq__(self, other):
        return isinstance(other, ExpressionFunction) and other.text == self.text

    def __hash__(self):
        return hash(("ExpressionFunction", self.text))


class LawExpression:
    """A non-linear spring-damper law F(delta, rate) from an expression text.

    ``delta`` = l − l0 [m] and ``rate`` = l' [m/s]; F [N], tension positive.  Callable as
    ``law(delta, rate)``; ``derivatives(delta, rate)`` gives (F, ∂F/∂delta, ∂F/∂rate)
    exactly, which the spring-damper uses for its Jacobians.
    """

    variables = ("delta", "rate")
    _labels = ("the law", "the delta-derivative of the law", "the rate-derivative of the law")

    def __init__(self, text: str):
        self.text = text
        tree = parse(text, self.variables)
        try:
            self._f = tuple(compile_tree(x, self.variables)
                            for x in (tree, derivative(tree, "delta"), derivative(tree, "rate")))
        except RecursionError:
            raise ExpressionError(f"{text!r} is too complex") from None
        self.tree = tree

    def derivatives(self, delta, rate):
        d, r = float(delta), float(rate)
        return _evaluate(self._f, (d, r), self.text, self._labels, f"delta = {d:g} m, rate = {r:g} m/s")

    def __call__(self, delta, rate):
        return self.derivatives(delta, rate)[0]

    def __repr__(self):
        return f"LawExpression({self.text!r})"


__all__ = ["ExpressionFunction", "LawExpression", "ExpressionError", "parse", "derivative", "compile_tree",
           "to_text", "FUNCTIONS", "CONSTANTS"]
