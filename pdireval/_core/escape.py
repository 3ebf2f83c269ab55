"""Names users choose, made safe for each format they are written to.

Run names, query ids, metric labels of your own and captions reach spreadsheets, papers,
web pages and figures. Each format gets one function here, and every writer passes
every user-chosen text through it:

* Excel: a text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
  a formula to a spreadsheet (formula injection, OWASP); it is written as text.
* Markdown: characters that start markup or HTML are escaped, and line breaks, which
  would end a table row, become spaces.
* HTML: ``html.escape``.
* LaTeX: every special character becomes the command that prints it.
* matplotlib: a ``$`` would start mathematical text; it is escaped.

Fixed text of our own (symbols, numbers, the words of a legend) is not passed through
these functions; it is written for each format as it is.
"""

from __future__ import annotations

import html as _html
import re

__all__ = ["excel_is_formula", "excel_text", "html", "latex", "markdown", "matplotlib"]

#: Characters that end a line somewhere (Python's str.splitlines() included).
_LINE_BREAKS = re.compile(r"[\r\n\t\v\f\x1c-\x1e\x85\u2028\u2029]+")
#: Other control characters: no format has a use for them, and XML forbids most.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_REPLACEMENT = "\ufffd"  # the replacement character, shown as a ? in a diamond
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
_MARKDOWN = re.compile(r"([\\`*_\[\]|~$<>&#!])")
_MARKDOWN_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': r"\textquotedbl{}",
}


def _one_line(text: object) -> str:
    """``text`` on one line (line breaks as spaces), control characters replaced."""
    return _CONTROL.sub(_REPLACEMENT, _LINE_BREAKS.sub(" ", str(text)))


def excel_is_formula(text: str) -> bool:
    """Whether a spreadsheet would read ``text`` as a formula (it must be written as text).

    Examples
    --------
    >>> excel_is_formula("=HYPERLINK(\\"x\\")"), excel_is_formula("-1"), excel_is_formula("bm25")
    (True, True, False)
    """
    return text.startswith(_FORMULA_START)


def excel_text(text: str) -> str:
    """``text`` as a spreadsheet cell holds it: control characters XML cannot carry replaced.

    Examples
    --------
    >>> excel_text("a\x1bb\tc")
    'a\ufffdb\tc'
    """
    return _CONTROL.sub(_REPLACEMENT, text)


def markdown(text: object) -> str:
    """``text`` for a Markdown table cell or paragraph: no markup, no HTML, one line.

    Examples
    --------
    >>> markdown("<script>x</script> | *a*\\nb")
    '&lt;script&gt;x&lt;/script&gt; \\\\| \\\\*a\\\\* b'
    """
    one_line = _one_line(text)

    def escaped(match: re.Match[str]) -> str:
        char = match.group(1)
        return _MARKDOWN_ENTITIES.get(char, "\\" + char)

    return _MARKDOWN.sub(escaped, one_line)


def html(text: object) -> str:
    """``text`` as HTML text (quotes escaped too: safe in attributes).

    Examples
    --------
    >>> html('<b>"x"</b>')
    '&lt;b&gt;&quot;x&quot;&lt;/b&gt;'
    """
    return _html.escape(str(text), quote=True)


def latex(text: object) -> str:
    """``text`` as LaTeX text: each special character as the command that prints it.

    Examples
    --------
    >>> print(latex("a_b & 50% <x> \\\\alpha"))
    a\\_b \\& 50\\% \\textless{}x\\textgreater{} \\textbackslash{}alpha
    """
    return "".join(_LATEX.get(char, char) for char in _one_line(text))


def matplotlib(text: object) -> str:
    """``text`` for a matplotlib label: a ``$`` would start mathematical text.

    Examples
    --------
    >>> matplotlib("cost $5 and $6")
    'cost \\\\$5 and \\\\$6'
    """
    return str(text).replace("$", r"\$")
