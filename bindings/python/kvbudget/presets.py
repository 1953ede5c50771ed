"""The built-in presets as Python objects.

Built from the C ``count`` / ``name`` / ``source`` / ``get`` functions, so
they are always the loaded library's table::

    import kvbudget
    names = [p.name for p in kvbudget.presets.models()]
    a10g = kvbudget.presets.gpu("a10g")        # any accepted spelling
    a10g.name, a10g.source, a10g.gpu.total_bytes
    cheap = [i for i in kvbudget.presets.instances() if i.price_per_hour]
"""

from __future__ import annotations

from ctypes import byref, c_uint64
from dataclasses import dataclass
from typing import List

from . import _capi
from ._api import instance_gpu as _instance_gpu
from ._types import Gpu, Instance, Model

__all__ = ["ModelPreset", "GpuPreset", "InstancePreset", "models", "gpus",
           "instances", "model", "gpu", "instance"]


@dataclass(frozen=True)
class ModelPreset:
    """A model preset: its stable name, its citation, the published
    parameter count it is checked against, and the :class:`Model`."""

    index: int
    name: str
    source: str
    published_params: int
    model: Model


@dataclass(frozen=True)
class GpuPreset:
    """A GPU preset (count 1) and its citation."""

    index: int
    name: str
    source: str
    gpu: Gpu


@dataclass(frozen=True)
class InstancePreset:
    """A cloud instance preset and its citation."""

    index: int
    name: str
    source: str
    instance: Instance

    @property
    def gpu(self) -> Gpu:
        """The instance's GPU with count = its GPU count
        (``kvb_instance_gpu``)."""
        return _instance_gpu(self.instance)

    @property
    def price_per_hour(self) -> float:
        """USD on demand; 0 when unknown."""
        return self.instance.price_per_hour


def _model_preset(i: int) -> ModelPreset:
    lib = _capi.library()
    m = _capi.Model()
    err = _capi.Error()
    lib.kvb_preset_model_get(i, m, err)
    params = c_uint64()
    lib.kvb_preset_model_published_params(i, byref(params), err)
    return ModelPreset(i, lib.kvb_preset_model_name(i),
                       lib.kvb_preset_model_source(i), params.value,
                       Model.from_c(m))


def _gpu_preset(i: int) -> GpuPreset:
    lib = _capi.library()
    g = _capi.Gpu()
    lib.kvb_preset_gpu_get(i, g, _capi.Error())
    return GpuPreset(i, lib.kvb_preset_gpu_name(i),
                     lib.kvb_preset_gpu_source(i), Gpu.from_c(g))


def _instance_preset(i: int) -> InstancePreset:
    lib = _capi.library()
    inst = _capi.Instance()
    lib.kvb_preset_instance_get(i, inst, _capi.Error())
    return InstancePreset(i, lib.kvb_preset_instance_name(i),
                          lib.kvb_preset_instance_source(i),
                          Instance.from_c(inst))


def models() -> List[ModelPreset]:
    """Every model preset, in table order."""
    return [_model_preset(i)
            for i in range(_capi.library().kvb_preset_model_count())]


def gpus() -> List[GpuPreset]:
    """Every GPU preset, in table order."""
    return [_gpu_preset(i)
            for i in range(_capi.library().kvb_preset_gpu_count())]


def instances() -> List[InstancePreset]:
    """Every cloud instance preset, in table order."""
    return [_instance_preset(i)
            for i in range(_capi.library().kvb_preset_instance_count())]


def _index_of(kind: str, name: str) -> int:
    """The table index of a name the C find accepts (aliases included)."""
    lib = _capi.library()
    if kind == "model":
        target = _capi.Model()
        lib.kvb_preset_model_find(name.encode(), target, _capi.Error())
        names = [lib.kvb_preset_model_name(i)
                 for i in range(lib.kvb_preset_model_count())]
    elif kind == "gpu":
        target = _capi.Gpu()
        lib.kvb_preset_gpu_find(name.encode(), target, _capi.Error())
        names = [lib.kvb_preset_gpu_name(i)
                 for i in range(lib.kvb_preset_gpu_count())]
    else:
        target = _capi.Instance()
        lib.kvb_preset_instance_find(name.encode(), target, _capi.Error())
        names = [lib.kvb_preset_instance_name(i)
                 for i in range(lib.kvb_preset_instance_count())]
    return names.index(target.name.decode())


def model(name: str) -> ModelPreset:
    """The model preset ``name`` (case-insensitive, aliases too)."""
    return _model_preset(_index_of("model", name))


def gpu(name: str) -> GpuPreset:
    """The GPU preset ``name`` (case-insensitive, aliases too)."""
    return _gpu_preset(_index_of("gpu", name))


def instance(name: str) -> InstancePreset:
    """The instance preset ``name`` (case-insensitive)."""
    return _instance_preset(_index_of("instance", name))
