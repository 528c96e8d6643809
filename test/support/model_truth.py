"""Embeddings of potion-base-8M computed apart from src/model/, as Model2Vec's StaticModel.encode
defines them (model2vec/model.py): the Python tokenizers library, the table read from the
safetensors file by numpy, the mean of the rows, L2-normalised.

Usage: python model_truth.py MODEL_DIR < texts.json > vectors.json (a JSON list of lists)."""
import json
import struct
import sys

import numpy as np
from tokenizers import Tokenizer

MAX_LENGTH = 512  # StaticModel.encode's default


def table(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    entry = header["embeddings"]
    assert entry["dtype"] == "F32", entry
    begin, end = entry["data_offsets"]
    return np.frombuffer(raw[8 + n + begin : 8 + n + end], dtype="<f4").reshape(entry["shape"])


def main():
    model_dir = sys.argv[1]
    texts = json.load(sys.stdin)
    tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    vectors = table(f"{model_dir}/model.safetensors")
    vocab = tokenizer.get_vocab()
    unk_id = vocab.get(tokenizer.model.unk_token)
    median_token_length = int(np.median([len(token) for token in vocab]))
    cut = [text[: MAX_LENGTH * median_token_length] for text in texts]
    out = []
    for encoding in tokenizer.encode_batch(cut, add_special_tokens=False):
        ids = [i for i in encoding.ids if i != unk_id][:MAX_LENGTH]
        if not ids:
            out.append([0.0] * vectors.shape[1])
            continue
        mean = vectors[ids].astype(np.float64).mean(axis=0)
        out.append((mean / (np.linalg.norm(mean) + 1e-32)).tolist())
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
