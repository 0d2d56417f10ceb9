import sys
from pathlib import Path

# Test helper modules (stacking, engine_helpers, leakcheck) live beside the tests; the
# repository's tools (tools/protocol_doc.py) at its root.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).parent.parent))
