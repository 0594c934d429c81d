"""A kernel that announces no subshells, as ipykernel 6 does (for the bridge's fallback path)."""

from ipykernel.ipkernel import IPythonKernel


class NoSubshellKernel(IPythonKernel):
    @property
    def kernel_info(self):
        info = dict(super().kernel_info)
        info["supported_features"] = [f for f in info["supported_features"] if f != "kernel subshells"]
        return info
