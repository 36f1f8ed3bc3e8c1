"""Seed corpus of the fuzz target `npz` (docs/fuzzing.md): small NumPy archives written with the
standard library only (the `.npy` v1.0 format and `zipfile`, as `np.savez` / `np.savez_compressed`
write them), stored and deflated, float64 / complex128 / float32 / complex64, plus truncated ones.
Run from fuzz/: python3 make_npz_seeds.py"""
import io
import struct
import zipfile

def npy(descr, shape, values, fortran=False):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", ", ".join("%d" % s for s in shape) if len(shape) != 1 else "%d," % shape[0])
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    fmt = {"<f8": "<d", "<f4": "<f", "<c16": "<d", "<c8": "<f", ">f8": ">d"}[descr]
    flat = []
    for v in values:
        if descr.endswith(("c16", "c8")):
            flat += [v.real, v.imag]
        else:
            flat.append(v)
    body = b"".join(struct.pack(fmt, x) for x in flat)
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + body

def npz(members, compression):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members:
            z.writestr(name + ".npy", data)
    return buf.getvalue()

rho = [0.6, 0.1, 0.1, 0.4]
rho_c = [0.6, 0.1 + 0.05j, 0.1 - 0.05j, 0.4]
sigma_c = [0.3, 0.2 - 0.1j, 0.2 + 0.1j, 0.7]
seeds = {
    "f64_stored": npz([("rho", npy("<f8", (2, 2), rho))], zipfile.ZIP_STORED),
    "f64_deflated": npz([("rho", npy("<f8", (2, 2), rho))], zipfile.ZIP_DEFLATED),
    "c128_pair_deflated": npz([("rho", npy("<c16", (2, 2), rho_c)), ("sigma", npy("<c16", (2, 2), sigma_c))], zipfile.ZIP_DEFLATED),
    "c128_pair_stored": npz([("rho", npy("<c16", (2, 2), rho_c)), ("sigma", npy("<c16", (2, 2), sigma_c))], zipfile.ZIP_STORED),
    "f32_stored": npz([("rho", npy("<f4", (2, 2), rho))], zipfile.ZIP_STORED),
    "c64_deflated": npz([("rho", npy("<c8", (2, 2), rho_c))], zipfile.ZIP_DEFLATED),
    "f64_stack_fortran": npz([("rho", npy("<f8", (2, 2, 2), rho + rho, fortran=True))], zipfile.ZIP_DEFLATED),
    "f64_big_endian": npz([("rho", npy(">f8", (2, 2), rho))], zipfile.ZIP_STORED),
}
full = seeds["c128_pair_deflated"]
seeds["truncated_half"] = full[: len(full) // 2]
seeds["truncated_central_directory"] = full[:-10]
stored = seeds["f64_stored"]
seeds["truncated_member_stored"] = stored[:60] + stored[-100:]
for name, data in seeds.items():
    with open("corpus/npz/" + name, "wb") as f:
        f.write(data)
