"""What every command shares: turning user errors into one line and exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Callable

from mteval.errors import MtevalError


def run_command(prog: str, body: Callable[[], int]) -> int:
    """Run a command body; a user error prints ``prog: error: ...`` on one line and returns 2."""
    try:
        return body()
    except MtevalError as exc:
        print(f"{prog}: error: {exc.format()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted (finished files are kept; re-run to resume)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
