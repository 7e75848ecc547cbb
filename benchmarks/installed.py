"""Time ``baccarat`` as an installed package runs: with its modules' bytecode compiled.

An installed package has its bytecode compiled (pip compiles it at install; a checkout writes it on
the first import).  Where ``PYTHONDONTWRITEBYTECODE`` is set, as in this project's shared
environment, nothing is ever written, and every ``baccarat`` process compiles its own modules
from source again: about 40 of them, some 30 ms of every start-up on this machine (issue 17's
profile).  The benchmarks that time whole processes therefore compile the package once before
timing, into its ``__pycache__`` folders (ignored by git), unless told not to.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def compile_package() -> Path:
    """Compile the imported ``baccarat`` package's modules to bytecode; its folder."""
    import baccarat

    folder = Path(baccarat.__file__).resolve().parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True, stdout=subprocess.DEVNULL)
    return folder
