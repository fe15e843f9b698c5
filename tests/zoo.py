"""A zoo of real architectures from `transformers`: the model classes users run, built from tiny
configs with random weights (nothing is downloaded), exported as users export them.

Each architecture is its `transformers` class, configured in code (one layer, width 32, a vocabulary
of 128, 32x32 images), seeded, wrapped to return one tensor (`torch.export` needs a plain output;
a user's wrapper does the same), and exported with `torch.export.export(..., strict=False)` (these
models need non-strict tracing) in f32 or f16, static or with one dynamic dimension: the sequence
of a text model, the batch of an image or audio model (`torch.export.Dim`). `save_onnx` writes the
same model with `torch.onnx.export`, where that exporter takes it, so the ONNX path sees it too.

Used by the tests (tests/test_zoo.py) and `bench/zoo.py`; the tool itself never imports
`transformers`: it is the `zoo` extra (`pip install -e '.[zoo]'`, docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import logging
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

INSTALL = "pip install -e '.[zoo]'"
DTYPES = {"f32": torch.float32, "f16": torch.float16}
VOCAB = 128
TOKENS = 8  # the example sequence of a text model
IMAGE = 32  # the example images' side
BATCH = 2  # the example batch where the batch is dynamic (export specialises a size of 1)
# What every text config shares: one layer, four heads, width 32; the special tokens inside the vocabulary.
TEXT = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=2)
GQA = dict(TEXT, num_key_value_heads=2)  # grouped-query attention: two heads share a key and a value


def missing() -> str | None:
    """Why the zoo cannot be built here (with the command that installs it), or None."""
    if importlib.util.find_spec("transformers") is None:  # not imported here: that takes seconds
        return f"transformers is not installed: {INSTALL}"
    return None


class Returning(nn.Module):
    """A model called with one keyword argument, returning one field of its output as a tensor."""

    def __init__(self, model: nn.Module, keyword: str, field: str, **fixed: object) -> None:
        super().__init__()
        self.model, self.keyword, self.field, self.fixed = model, keyword, field, fixed

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return getattr(self.model(**{self.keyword: x}, **self.fixed), self.field)


@dataclass(frozen=True)
class Architecture:
    """One architecture: how its model is built, what it is called on, and which axis may vary."""

    name: str
    family: str
    build: Callable[[], nn.Module]  # the wrapped model, f32, random weights (seeded by the caller)
    example: Callable[[torch.Generator], torch.Tensor]  # its one input at the example size
    dynamic_axis: int  # the sequence (text) or the batch (images, audio)

    def dynamic_name(self) -> str:
        return "batch" if self.dynamic_axis == 0 else "seq"


def _tokens(generator: torch.Generator) -> torch.Tensor:
    return torch.randint(3, VOCAB, (1, TOKENS), generator=generator)


def _images(generator: torch.Generator) -> torch.Tensor:
    return torch.randn(BATCH, 3, IMAGE, IMAGE, generator=generator)


def _features(generator: torch.Generator) -> torch.Tensor:
    return torch.randn(BATCH, 16, 32, generator=generator)  # 16 mel bins, 2 x max_source_positions frames


def _causal_lm(config_class: str, model_class: str, **config: object) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import transformers

        model = getattr(transformers, model_class)(getattr(transformers, config_class)(**config))
        return Returning(model, "input_ids", "logits")

    return build


def _model(config_class: str, model_class: str, keyword: str, field: str, **config: object) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import transformers

        return Returning(getattr(transformers, model_class)(getattr(transformers, config_class)(**config)), keyword, field)

    return build


def _whisper_encoder() -> nn.Module:
    import transformers

    config = transformers.WhisperConfig(vocab_size=VOCAB, d_model=32, encoder_layers=1, decoder_layers=1,
                                        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                        decoder_ffn_dim=64, num_mel_bins=16, max_source_positions=16,
                                        pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    return Returning(transformers.WhisperModel(config).get_encoder(), "input_features", "last_hidden_state")


VISION = dict(image_size=IMAGE, num_channels=3)
ARCHITECTURES: dict[str, Architecture] = {a.name: a for a in (
    Architecture("llama", "decoder LLM (rotary, GQA)", _causal_lm("LlamaConfig", "LlamaForCausalLM", **GQA), _tokens, 1),
    Architecture("qwen2", "decoder LLM (rotary, GQA)", _causal_lm("Qwen2Config", "Qwen2ForCausalLM", **GQA), _tokens, 1),
    Architecture("mistral", "decoder LLM (rotary, GQA)", _causal_lm("MistralConfig", "MistralForCausalLM", **GQA), _tokens, 1),
    Architecture("gemma", "decoder LLM (rotary, GQA)", _causal_lm("GemmaConfig", "GemmaForCausalLM", **GQA, head_dim=8), _tokens, 1),
    Architecture("phi3", "decoder LLM (rotary, GQA)", _causal_lm("Phi3Config", "Phi3ForCausalLM", **GQA), _tokens, 1),
    Architecture("phi", "decoder LLM (partial rotary)", _causal_lm("PhiConfig", "PhiForCausalLM", **GQA), _tokens, 1),
    Architecture("gpt2", "decoder LLM (learned positions)", _causal_lm(
        "GPT2Config", "GPT2LMHeadModel", vocab_size=VOCAB, n_embd=32, n_layer=1, n_head=4, n_positions=64,
        bos_token_id=1, eos_token_id=2), _tokens, 1),
    Architecture("bert", "text encoder", _model("BertConfig", "BertModel", "input_ids", "last_hidden_state", **TEXT), _tokens, 1),
    Architecture("distilbert", "text encoder", _model(
        "DistilBertConfig", "DistilBertModel", "input_ids", "last_hidden_state", vocab_size=VOCAB, dim=32, n_layers=1,
        n_heads=4, hidden_dim=64, max_position_embeddings=64, pad_token_id=0), _tokens, 1),
    Architecture("t5-encoder", "encoder of an encoder-decoder", _model(
        "T5Config", "T5EncoderModel", "input_ids", "last_hidden_state", vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64,
        num_layers=1, num_heads=4, pad_token_id=0, eos_token_id=2, decoder_start_token_id=0), _tokens, 1),
    Architecture("whisper-encoder", "speech encoder", _whisper_encoder, _features, 0),
    Architecture("vit", "vision transformer", _model(
        "ViTConfig", "ViTModel", "pixel_values", "last_hidden_state", hidden_size=32, num_hidden_layers=1,
        num_attention_heads=4, intermediate_size=64, patch_size=8, **VISION), _images, 0),
    Architecture("swin", "vision transformer (windows)", _model(
        "SwinConfig", "SwinModel", "pixel_values", "pooler_output", patch_size=4, embed_dim=16, depths=[1, 1],
        num_heads=[2, 2], window_size=4, **VISION), _images, 0),
    Architecture("resnet", "CNN (batch norm)", _model(
        "ResNetConfig", "ResNetModel", "pixel_values", "pooler_output", embedding_size=8, hidden_sizes=[8, 16],
        depths=[1, 1], layer_type="basic", num_channels=3), _images, 0),
    Architecture("convnext", "CNN (layer norm, depthwise)", _model(
        "ConvNextConfig", "ConvNextModel", "pixel_values", "pooler_output", hidden_sizes=[8, 16], depths=[1, 1],
        num_stages=2, num_channels=3), _images, 0),
    Architecture("mobilenetv2", "CNN (inverted residuals)", _model(
        "MobileNetV2Config", "MobileNetV2Model", "pixel_values", "pooler_output", depth_multiplier=0.25, min_depth=4,
        **VISION), _images, 0),
)}  # fmt: skip


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """transformers' and the exporters' warnings and log lines kept off the output."""
    loggers = [logging.getLogger(name) for name in ("transformers", "torch", "torch.export", "torch.onnx", "onnxscript")]
    levels = [logger.level for logger in loggers]
    try:
        for logger in loggers:
            logger.setLevel(logging.ERROR)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def model(name: str, dtype: str = "f32") -> tuple[nn.Module, tuple[torch.Tensor]]:
    """The architecture's model in `dtype` (random weights, seed 0), in eval mode, and its example input."""
    architecture = ARCHITECTURES[name]
    torch.manual_seed(0)
    with _quiet():
        built = architecture.build().eval().to(DTYPES[dtype])
    example = architecture.example(torch.Generator().manual_seed(0))
    return built, (example.to(DTYPES[dtype]) if example.is_floating_point() else example,)


def dynamic_shapes(name: str) -> tuple[dict[int, torch.export.Dim]]:
    """The one dynamic axis of the architecture's input: its sequence (2 to 64 tokens) or its batch (1 to 8)."""
    architecture = ARCHITECTURES[name]
    if architecture.dynamic_axis == 0:
        return ({0: torch.export.Dim("batch", min=1, max=8)},)
    return ({1: torch.export.Dim("seq", min=2, max=64)},)


def export(name: str, dtype: str = "f32", dynamic: bool = False) -> torch.export.ExportedProgram:
    """The architecture exported as users export it: `torch.export.export(..., strict=False)`."""
    built, example = model(name, dtype)
    with _quiet(), torch.no_grad():
        return torch.export.export(built, example, dynamic_shapes=dynamic_shapes(name) if dynamic else None, strict=False)


def save(name: str, path: Path, dtype: str = "f32", dynamic: bool = False) -> Path:
    """The exported program written with `torch.export.save` (the `.pt2` archive `reduce` takes)."""
    program = export(name, dtype, dynamic)
    with _quiet():
        torch.export.save(program, path)
    return path


def save_onnx(name: str, path: Path, dtype: str = "f32", dynamic: bool = False) -> Path:
    """The same model written by `torch.onnx.export` (its torch.export-based exporter); the
    exporter's exception, as it raises it, where it does not take the model."""
    built, example = model(name, dtype)
    with _quiet(), torch.no_grad():
        torch.onnx.export(built, example, str(path), dynamo=True, input_names=["x"], optimize=True, external_data=False,
                          dynamic_shapes=dynamic_shapes(name) if dynamic else None, verbose=False)
    return path


def save_inputs(name: str, path: Path, dtype: str = "f32") -> Path:
    """The example input as `.npy` (`reduce --inputs`): token ids inside the vocabulary, where seeded
    data would index past the embedding."""
    import numpy as np

    _, (example,) = model(name, dtype)
    np.save(path, example.numpy())
    return path


def file_name(name: str, dtype: str = "f32", dynamic: bool = False, suffix: str = ".pt2") -> str:
    """`llama-f16-dyn.pt2`: one variant's file name."""
    return f"{name}-{dtype}{'-dyn' if dynamic else ''}{suffix}"
