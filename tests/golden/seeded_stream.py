# Independent reproduction of stats/src/seeded.rs (pip install blake3 cryptography); prints the golden vectors.
import blake3, struct
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
CTX = "layoutrand 2026-11 seeded stream v1"
class R:
    def __init__(s, seed, purpose):
        key = blake3.blake3(struct.pack('<Q', seed) + purpose.encode(), derive_key_context=CTX).digest()
        enc = Cipher(algorithms.ChaCha20(key, b'\0'*16), mode=None).encryptor()
        s.ks = enc.update(b'\0' * 65536); s.pos = 0
    def u64(s):
        v = struct.unpack_from('<Q', s.ks, s.pos)[0]; s.pos += 8; return v
    def below(s, n):
        M = 2**64 - 1
        limit = M - (M % n + 1) % n
        while True:
            x = s.u64()
            if x <= limit: return x % n
    def perm(s, n):
        v = list(range(n))
        for i in range(n-1, 0, -1):
            j = s.below(i+1); v[i], v[j] = v[j], v[i]
        return v
r = R(1, "link-order"); print([r.u64() for _ in range(3)])
print(R(42, "link-order").perm(10)); print(R(7, "schedule").perm(6))

r = R(1, "padding:demo"); print([a * r.below(256 // a + 1) for a in (16, 16, 1, 64, 512)])

# build --data-order: src/layout/reorder/data.rs shuffle_data, stream "data-order:<program>";
# families by rank (R rodata, D data, B bss), shuffled family by family in the order
# tdata, tbss, data.rel.ro.local, data.rel.ro, rodata, data, bss.
def data_order(r, families):
    out = []
    for fam in ["tdata", "tbss", "drrl", "drr", "R", "D", "B"]:
        ranks = [k for k, f in enumerate(families) if f == fam]
        for i in range(len(ranks) - 1, 0, -1):
            j = r.below(i + 1); ranks[i], ranks[j] = ranks[j], ranks[i]
        out += ranks
    return out
print(data_order(R(1, "data-order:demo"), ["R", "D", "R", "B", "R", "D", "R", "R", "B", "B"]))
