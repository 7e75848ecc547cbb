"""Casino-grade baccarat: one rules core for mini-baccarat (with Dragon Bonus),
EZ Baccarat (Dragon 7, Panda 8) and Lucky Draw Baccarat (Draw, Block Bonus).

The core modules (``cards``, ``shoe``, ``tableau``, ``coup``, ``lucky``,
``games``, ``presets``, ``table``...) import nothing outside the standard
library; the command line (``baccarat.cli.app``) sits on top.
"""

__version__ = "0.1.0"
