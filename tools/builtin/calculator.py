"""``calculate``: exact and floating-point arithmetic that the model can trust.

Language models are unreliable at arithmetic, and the usual shortcut of handing their text to ``eval`` runs
arbitrary code. This module evaluates an expression without ``eval`` or ``exec``: the text is parsed with
``ast`` and the tree is checked against an allow-list (numbers, ``+ - * / // % **``, unary ``+``/``-``,
parentheses, a fixed set of ``math`` functions and the constants ``pi``, ``e`` and ``tau``) before anything is
computed. Anything else (names, attributes, strings, lambdas, comprehensions, indexing, keyword arguments) is
refused with a message that says what is allowed.

Arithmetic follows Python: integers are exact and unbounded (within the limits below), ``/`` always gives a
float, ``//`` and ``%`` floor, ``round`` rounds halves to even. Floats are shown with ``repr``, the shortest
text that reads back as the same float, so ``10/2`` is ``5.0`` and ``1e16 + 1.0`` is ``1e+16``; write integers
to stay exact (``10**16 + 1``). Infinities, NaN and complex results are refused rather than shown.

Limits, so that hostile or careless input is refused in well under a millisecond instead of tying up the
event loop (the tool runs on it):

* ``MAX_EXPRESSION_CHARS``: the expression's length.
* ``MAX_AST_NODES``: numbers, names, operators and calls in the parsed expression.
* ``MAX_NESTING_DEPTH``: how deeply the tree nests (it also bounds the evaluator's recursion).
* ``MAX_OPERATIONS``: operators plus function calls, i.e. the steps evaluated.
* ``MAX_EXPONENT``: the absolute value of any exponent.
* ``MAX_INT_DIGITS``: decimal digits of any integer, literal, intermediate or final. A power is refused from
  an estimate *before* it is computed, so ``9**9**9`` and ``(10**5000)**2`` cost nothing.
* ``MAX_FACTORIAL_ARGUMENT``: the largest ``n`` for ``factorial(n)``.
* ``MAX_ROUND_DIGITS``: the absolute value of ``round``'s second argument.

Every operand is at most ``MAX_INT_DIGITS`` digits and there are at most ``MAX_OPERATIONS`` steps, so the
total work is bounded too.
"""

from __future__ import annotations

import ast
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from pydantic import Field

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.registry import Tool

MAX_EXPRESSION_CHARS = 500
MAX_AST_NODES = 300
MAX_NESTING_DEPTH = 100
MAX_OPERATIONS = 200
MAX_EXPONENT = 10_000
MAX_INT_DIGITS = 10_000
MAX_FACTORIAL_ARGUMENT = 1_000
MAX_ROUND_DIGITS = 1_000

_INT_LIMIT = 10**MAX_INT_DIGITS  # an integer is too large when its absolute value reaches this
_QUOTE_CHARS = 60  # longest piece of the expression quoted in an error message

Number = int | float


class CalculationError(ValueError):
    """The expression was refused or could not be evaluated; the message is meant for the model."""


# --- the allow-list ---------------------------------------------------------------------------------


def _integer_argument(name: str, value: Number) -> int:
    if isinstance(value, float):
        if not value.is_integer():
            raise CalculationError(f"{name} needs a whole number, not {value!r}")
        return int(value)
    return value


def _factorial(value: Number) -> int:
    n = _integer_argument("factorial", value)
    if n < 0:
        raise CalculationError(f"factorial is not defined for negative numbers ({n})")
    if n > MAX_FACTORIAL_ARGUMENT:
        raise CalculationError(
            f"factorial({_brief(n)}) is too large; the limit is factorial({MAX_FACTORIAL_ARGUMENT})")
    return math.factorial(n)


def _round(value: Number, ndigits: Number | None = None) -> Number:
    if ndigits is None:
        return round(value)
    places = _integer_argument("round's second argument", ndigits)
    if abs(places) > MAX_ROUND_DIGITS:
        raise CalculationError(
            f"round's second argument must be between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}")
    return round(value, places)


def _log(value: Number, base: Number | None = None) -> float:
    return math.log(value) if base is None else math.log(value, base)


@dataclass(frozen=True)
class _Function:
    implementation: Callable[..., Number]
    min_args: int
    max_args: int | None  # None: any number


FUNCTIONS: dict[str, _Function] = {
    "abs": _Function(abs, 1, 1),
    "acos": _Function(math.acos, 1, 1),
    "asin": _Function(math.asin, 1, 1),
    "atan": _Function(math.atan, 1, 1),
    "atan2": _Function(math.atan2, 2, 2),
    "ceil": _Function(math.ceil, 1, 1),
    "cos": _Function(math.cos, 1, 1),
    "degrees": _Function(math.degrees, 1, 1),
    "exp": _Function(math.exp, 1, 1),
    "factorial": _Function(_factorial, 1, 1),
    "floor": _Function(math.floor, 1, 1),
    "hypot": _Function(math.hypot, 1, None),
    "log": _Function(_log, 1, 2),
    "log10": _Function(math.log10, 1, 1),
    "log2": _Function(math.log2, 1, 1),
    "max": _Function(lambda *values: max(values), 1, None),
    "min": _Function(lambda *values: min(values), 1, None),
    "radians": _Function(math.radians, 1, 1),
    "round": _Function(_round, 1, 2),
    "sin": _Function(math.sin, 1, 1),
    "sqrt": _Function(math.sqrt, 1, 1),
    "tan": _Function(math.tan, 1, 1),
}
CONSTANTS: dict[str, float] = {"e": math.e, "pi": math.pi, "tau": math.tau}

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: _power(a, b),
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: lambda a: +a,
    ast.USub: lambda a: -a,
}
_OPERATOR_HINTS: dict[type[ast.AST], str] = {
    ast.BitXor: "'^' is not supported; write powers with '**' (2**10)",
    ast.BitAnd: "'&' is not supported",
    ast.BitOr: "'|' is not supported",
    ast.LShift: "'<<' is not supported",
    ast.RShift: "'>>' is not supported",
    ast.MatMult: "'@' is not supported",
    ast.Invert: "'~' is not supported",
    ast.Not: "'not' is not supported",
}
_NODE_HINTS: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access ('.name') is not allowed",
    ast.Subscript: "indexing ('[...]') is not allowed",
    ast.Lambda: "lambda functions are not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.List: "lists are not allowed",
    ast.Set: "sets are not allowed",
    ast.Dict: "dicts are not allowed",
    ast.Tuple: "a comma only separates function arguments; write numbers without thousands separators "
    "(1000, not 1,000) and calculate one expression at a time",
    ast.Compare: "comparisons are not supported",
    ast.BoolOp: "'and' and 'or' are not supported",
    ast.IfExp: "conditional expressions ('x if c else y') are not supported",
    ast.NamedExpr: "assignments (':=') are not allowed",
    ast.JoinedStr: "strings are not allowed",
    ast.Starred: "'*' unpacking is not allowed",
    ast.Await: "'await' is not allowed",
    ast.Yield: "'yield' is not allowed",
    ast.YieldFrom: "'yield' is not allowed",
}
# Typographic operators a model may copy from prose; each maps to one character so positions stay right.
_TRANSLATION = str.maketrans({"×": "*", "÷": "/", "−": "-", "\n": " ", "\r": " ", "\t": " "})


def _available() -> str:
    return f"available functions: {', '.join(FUNCTIONS)}; constants: {', '.join(CONSTANTS)}"


def _brief(value: Number) -> str:
    """A number for an error message: large integers by their size rather than all their digits."""
    if isinstance(value, int) and value.bit_length() > 100:
        return f"a {_digit_count(value):,}-digit number"
    return repr(value)


def _digit_count(value: int) -> int:
    return len(str(Decimal(abs(value))))  # Decimal: not subject to int's 4300-digit str() limit


# --- checking ------------------------------------------------------------------------------------------


class _Expression:
    """One parsed expression: the allow-list check, then evaluation."""

    def __init__(self, expression: str) -> None:
        if len(expression) > MAX_EXPRESSION_CHARS:
            raise CalculationError(
                f"the expression is {len(expression):,} characters long; the limit is {MAX_EXPRESSION_CHARS}")
        translated = expression.translate(_TRANSLATION)
        self.source = translated.strip()
        self.lead = len(translated) - len(translated.lstrip())
        if not self.source:
            raise CalculationError("the expression is empty")
        try:
            with warnings.catch_warnings():  # e.g. "invalid decimal literal" for '1if': refused anyway
                warnings.simplefilter("ignore", SyntaxWarning)
                self.tree = ast.parse(self.source, mode="eval")
        except SyntaxError as exc:
            raise CalculationError(self._syntax_message(exc)) from None
        except ValueError as exc:  # null bytes on Python 3.11
            raise CalculationError(f"syntax error: {exc}") from None
        except (RecursionError, MemoryError):
            raise CalculationError("the expression is too deeply nested") from None

    def _syntax_message(self, exc: SyntaxError) -> str:
        message = f"syntax error: {exc.msg}"
        offset = exc.offset if exc.lineno in (None, 1) else None
        if offset == 0:  # how Python 3.11 reports running out of input ('1 +')
            offset = len(self.source) + 1
            message += " (the expression ends too early)"
        if offset is not None and 1 <= offset <= len(self.source) + 1:
            column = self.lead + offset
            message += f" at position {column}\n  {' ' * self.lead}{self.source}\n  {' ' * (column - 1)}^"
        return message

    def _where(self, node: ast.AST) -> str:
        segment = ast.get_source_segment(self.source, node) or ""
        if len(segment) > _QUOTE_CHARS:
            segment = segment[: _QUOTE_CHARS - 1] + "…"
        return f"'{segment}'"

    def _position(self, node: ast.AST) -> int:
        byte_offset = getattr(node, "col_offset", 0)
        return self.lead + len(self.source.encode()[:byte_offset].decode(errors="ignore")) + 1

    def _refuse(self, node: ast.AST, reason: str) -> CalculationError:
        return CalculationError(f"{reason} (at position {self._position(node)}: {self._where(node)})")

    def check(self) -> None:
        """Refuse anything outside the allow-list or the size limits, before computing anything."""
        nodes = operations = 0
        stack: list[tuple[ast.expr, int]] = [(self.tree.body, 1)]
        while stack:
            node, depth = stack.pop()
            nodes += 1
            if nodes > MAX_AST_NODES:
                raise CalculationError(
                    f"the expression is too long: more than {MAX_AST_NODES} numbers, names and operators")
            if depth > MAX_NESTING_DEPTH:
                raise CalculationError(f"the expression nests more than {MAX_NESTING_DEPTH} levels deep; "
                                       "split it into smaller calculations")
            children = self._check_node(node)
            if isinstance(node, ast.BinOp | ast.UnaryOp | ast.Call):
                operations += 1
                if operations > MAX_OPERATIONS:
                    raise CalculationError(f"the expression has more than {MAX_OPERATIONS} operations; "
                                           "split it into smaller calculations")
            stack.extend((child, depth + 1) for child in reversed(children))

    def _check_node(self, node: ast.expr) -> list[ast.expr]:
        """The node's children, or CalculationError when the node is not allowed."""
        if isinstance(node, ast.Constant):
            self._check_constant(node)
            return []
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return []
            if node.id in FUNCTIONS:
                raise self._refuse(node, f"{node.id!r} is a function; call it, e.g. {node.id}(2)")
            raise self._refuse(node, f"unknown name {node.id!r}; {_available()}")
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                raise self._refuse(node, _OPERATOR_HINTS.get(type(node.op), "this operator is not supported"))
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp):
            if type(node.op) not in _UNARY:
                raise self._refuse(node, _OPERATOR_HINTS.get(type(node.op), "this operator is not supported"))
            return [node.operand]
        if isinstance(node, ast.Call):
            return self._check_call(node)
        reason = _NODE_HINTS.get(type(node), f"{type(node).__name__} expressions are not allowed")
        if not isinstance(node, ast.Tuple):
            reason += ("; only numbers, + - * / // % **, parentheses and the listed functions and constants "
                       "are allowed")
        raise self._refuse(node, reason)

    def _check_constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool) or value is None or value is Ellipsis:
            raise self._refuse(node, f"{value!r} is not a number")
        if isinstance(value, complex):
            raise self._refuse(node, "imaginary numbers are not supported")
        if isinstance(value, str | bytes):
            raise self._refuse(node, "strings are not allowed; only numbers")
        if isinstance(value, float) and not math.isfinite(value):
            raise self._refuse(node, "this number is too large for a float")
        if isinstance(value, int) and abs(value) >= _INT_LIMIT:
            raise self._refuse(node, f"this number has more than {MAX_INT_DIGITS:,} digits")
        if not isinstance(value, int | float):
            raise self._refuse(node, f"{type(value).__name__} values are not allowed; only numbers")

    def _check_call(self, node: ast.Call) -> list[ast.expr]:
        func = node.func
        if not isinstance(func, ast.Name):
            if type(func) in _NODE_HINTS:
                raise self._refuse(func, _NODE_HINTS[type(func)])
            raise self._refuse(node, f"only the listed functions can be called; {_available()}")
        if func.id in CONSTANTS:
            raise self._refuse(node, f"{func.id!r} is a constant, not a function")
        spec = FUNCTIONS.get(func.id)
        if spec is None:
            raise self._refuse(func, f"unknown function {func.id!r}; {_available()}")
        if node.keywords:
            raise self._refuse(node, f"{func.id}() takes no keyword arguments; pass values by position")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self._refuse(arg, _NODE_HINTS[ast.Starred])
        count = len(node.args)
        if count < spec.min_args or (spec.max_args is not None and count > spec.max_args):
            if spec.max_args is None:
                expected = f"at least {spec.min_args}"
            elif spec.min_args == spec.max_args:
                expected = f"exactly {spec.min_args}"
            else:
                expected = f"{spec.min_args} to {spec.max_args}"
            plural = "" if expected.endswith(" 1") else "s"
            raise self._refuse(node, f"{func.id}() takes {expected} argument{plural} ({count} given)")
        return list(node.args)

    # --- evaluation -------------------------------------------------------------------------------------

    def evaluate(self) -> Number:
        return self._eval(self.tree.body)

    def _eval(self, node: ast.expr) -> Number:
        if isinstance(node, ast.Constant):
            return cast(Number, node.value)  # _check_constant let only int and float constants through
        if isinstance(node, ast.Name):
            return CONSTANTS[node.id]
        if isinstance(node, ast.UnaryOp):
            operand = self._eval(node.operand)
            return self._apply(node, lambda: _UNARY[type(node.op)](operand))
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left), self._eval(node.right)
            return self._apply(node, lambda: _BINARY[type(node.op)](left, right))
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)  # guaranteed by check()
        args = [self._eval(arg) for arg in node.args]
        function = FUNCTIONS[node.func.id]
        return self._apply(node, lambda: function.implementation(*args))

    def _apply(self, node: ast.expr, compute: Callable[[], object]) -> Number:
        """Run one step, turning Python's exceptions into messages and refusing non-real or huge results."""
        try:
            result = compute()
        except CalculationError as exc:
            raise CalculationError(f"{exc} (in {self._where(node)})") from None
        except ZeroDivisionError:
            raise CalculationError(f"division by zero in {self._where(node)}") from None
        except OverflowError:
            raise CalculationError(f"the result of {self._where(node)} is too large") from None
        except (ValueError, TypeError) as exc:
            detail = "outside the function's domain" if str(exc) == "math domain error" else str(exc)
            raise CalculationError(f"{self._where(node)} cannot be calculated: {detail}") from None
        if isinstance(result, complex):
            raise CalculationError(f"{self._where(node)} has no real result (a negative number raised to a "
                                   "fractional power)")
        if isinstance(result, float) and not math.isfinite(result):
            problem = "is too large" if math.isinf(result) else "is not a number"
            raise CalculationError(f"the result of {self._where(node)} {problem}")
        if isinstance(result, int) and abs(result) >= _INT_LIMIT:
            raise CalculationError(
                f"the result of {self._where(node)} has more than {MAX_INT_DIGITS:,} digits")
        assert isinstance(result, int | float)
        return result


def _power(base: Number, exponent: Number) -> Number:
    """``base ** exponent``, refused before computing when the exponent or an integer result is too large."""
    if abs(exponent) > MAX_EXPONENT:
        raise CalculationError(
            f"the exponent {_brief(exponent)} is too large; the limit is ±{MAX_EXPONENT:,}")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        # Digits of the result, estimated from logarithms; _apply checks the exact result afterwards.
        digits = math.floor(exponent * math.log10(abs(base))) + 1
        if digits > MAX_INT_DIGITS:
            raise CalculationError(
                f"the result would have about {digits:,} digits; the limit is {MAX_INT_DIGITS:,}")
    return base**exponent


# --- the public face -------------------------------------------------------------------------------------


def evaluate(expression: str) -> Number:
    """The value of ``expression``, or CalculationError with a message for the model."""
    parsed = _Expression(expression)
    parsed.check()
    return parsed.evaluate()


def format_number(value: Number) -> str:
    """Integers exactly (however many digits), floats as their shortest round-trip ``repr``."""
    if isinstance(value, int):
        return str(Decimal(value))
    return repr(value)


class CalculateArguments(ToolArguments):
    expression: str = Field(
        max_length=MAX_EXPRESSION_CHARS,
        description="Arithmetic expression, e.g. '(3.5 + 2) * 4**2 / sqrt(2)'. Python syntax: ** for powers.",
    )


async def _calculate(arguments: CalculateArguments, context: ToolContext) -> ToolOutput:
    expression = arguments.expression.strip()
    try:
        value = evaluate(expression)
    except CalculationError as exc:
        return ToolOutput(text=f"Cannot calculate {expression!r}: {exc}", is_error=True)
    result = format_number(value)
    return ToolOutput(text=f"{expression} = {result}", data={"expression": expression, "result": result})


def calculator_tool() -> Tool:
    return Tool(
        name="calculate",
        description="Evaluate an arithmetic expression exactly (integers) or in floating point. Use it "
        "instead of doing arithmetic yourself. Supports + - * / // % ** and parentheses; functions "
        f"{', '.join(FUNCTIONS)}; constants {', '.join(CONSTANTS)}.",
        arguments=CalculateArguments,
        handler=_calculate,
        category="utility",
        visibility="hidden",
        parallel_safe=True,
        needs_approval=False,
    )
