"""Which GPU runtime drivers have a device on this machine, so GPU targets can run, not only compile.

The probe runs in a child process: creating a driver loads vendor libraries (libcuda, libamdhip64,
the Vulkan loader), and a broken install must cost a missing driver, not the campaign.
"""

from __future__ import annotations

import json
import subprocess
import sys

GPU_DRIVERS = ("cuda", "hip", "vulkan")

_PROBE = """
import json, sys
import iree.runtime as rt
found = []
for name in sys.argv[1:]:
    try:
        if rt.get_driver(name).query_available_devices():
            found.append(name)
    except Exception:
        pass
print(json.dumps(found))
"""


def drivers_with_a_device(drivers: tuple[str, ...] = GPU_DRIVERS, timeout_s: float = 60.0) -> tuple[str, ...]:
    """The drivers among `drivers` that see at least one device; () when the probe fails."""
    if not drivers:
        return ()
    try:
        probe = subprocess.run(
            [sys.executable, "-c", _PROBE, *drivers], capture_output=True, text=True, timeout=timeout_s, check=False
        )
        found = json.loads(probe.stdout.strip().splitlines()[-1]) if probe.returncode == 0 and probe.stdout.strip() else []
    except (subprocess.TimeoutExpired, json.JSONDecodeError, OSError):
        return ()
    return tuple(name for name in drivers if name in found)
