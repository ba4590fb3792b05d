"""Shared by sgai's plotting scripts: the one error line they print, and matplotlib (Agg) or that
error when it is missing."""
import sys


def fail(message):
    print("sgai: error: " + message, file=sys.stderr)
    sys.exit(1)


def pyplot(what):
    """matplotlib.pyplot on the Agg backend; one error line naming `what` when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(f"{what} needs matplotlib (Debian: apt-get install python3-matplotlib)")
    return plt
