"""Pick OpenBLAS kernels the CPU supports before the extension loads OpenBLAS.

Debian's OpenBLAS chooses its kernels when the library is loaded, from ``OPENBLAS_CORETYPE``
when set, and falls back to slow generic kernels on CPUs it does not recognise. The ``qrenyi``
binary corrects a misdetection in-process after start (src/cli/blas_env.rs); the package sets the
variable — only when unset, and only to a kernel family whose instructions the CPU reports in
/proc/cpuinfo — before importing ``qrenyi._qrenyi``.
"""
import os


def detect_coretype():
    """The OpenBLAS kernel family for this CPU (Linux x86-64), or None."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
            else:
                return None
    except OSError:
        return None
    if {"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd"} <= flags:
        return "SKYLAKEX"
    if {"avx2", "fma"} <= flags:
        return "HASWELL"
    if "avx" in flags:
        return "SANDYBRIDGE"
    return None


def ensure_coretype():
    """Set OPENBLAS_CORETYPE from the CPU's flags unless the user set it."""
    if "OPENBLAS_CORETYPE" not in os.environ:
        core = detect_coretype()
        if core is not None:
            os.environ["OPENBLAS_CORETYPE"] = core
