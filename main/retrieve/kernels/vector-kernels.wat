;; Vector search kernels (WebAssembly with 128-bit SIMD), used by main/retrieve/vector-index.ts.
;; Compiled to vector-kernels.wasm.ts by scripts/build-kernels.ts (wabt); test/retrieve/kernels.test.ts
;; checks that the committed module is this file's compilation.
;;
;; Memory layout is the caller's: every pointer is a byte offset into the imported memory.
;;   codes   n sign codes of `lanes` × 128 bits each (bit set = component > 0; padding bits 0)
;;   vecs    n vectors of `stride` float32 each (stride a multiple of 16; padding components 0)
;;   mask    n bytes, non-zero = the item must not be found (0 as pointer: no mask)
(module
  (import "env" "memory" (memory 1))

  ;; Hamming distances of each code to nq query codes (consecutive at $q, lanes × 16 bytes each), in one pass over
  ;; the codes. Query j's distances (i32 each) go to $dist + j·n·4; a masked item gets lanes·128+1. Each distance is
  ;; also counted in query j's histogram at $hist + j·(lanes·128+2)·4 (i32 per value 0 … lanes·128+1), which the
  ;; caller clears beforehand. Requires lanes ≤ 31 (per-byte sums stay below 256).
  (func (export "hammingMany") (param $codes i32) (param $n i32) (param $lanes i32) (param $q i32) (param $nq i32) (param $mask i32) (param $dist i32) (param $hist i32)
    (local $i i32) (local $j i32) (local $l i32) (local $p i32) (local $qp i32) (local $d i32) (local $slot i32) (local $sentinel i32)
    (local $masked i32) (local $codeBytes i32) (local $histBytes i32) (local $distOut i32) (local $histOut i32)
    (local $acc v128) (local $h v128)
    (local.set $sentinel (i32.add (i32.shl (local.get $lanes) (i32.const 7)) (i32.const 1)))
    (local.set $codeBytes (i32.shl (local.get $lanes) (i32.const 4)))
    (local.set $histBytes (i32.shl (i32.add (local.get $sentinel) (i32.const 1)) (i32.const 2)))
    (block $done
      (loop $items
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $masked (i32.const 0))
        (if (local.get $mask) (then (local.set $masked (i32.load8_u (i32.add (local.get $mask) (local.get $i))))))
        (local.set $qp (local.get $q))
        (local.set $distOut (i32.add (local.get $dist) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $histOut (local.get $hist))
        (local.set $j (i32.const 0))
        (block $queries_done
          (loop $query
            (br_if $queries_done (i32.ge_u (local.get $j) (local.get $nq)))
            (local.set $acc (v128.const i32x4 0 0 0 0))
            (local.set $p (i32.add (local.get $codes) (i32.mul (local.get $i) (local.get $codeBytes))))
            (local.set $l (i32.const 0))
            (block $lanes_done
              (loop $lane
                (br_if $lanes_done (i32.ge_u (local.get $l) (local.get $lanes)))
                (local.set $acc
                  (i8x16.add (local.get $acc) (i8x16.popcnt (v128.xor (v128.load (local.get $p)) (v128.load (local.get $qp))))))
                (local.set $p (i32.add (local.get $p) (i32.const 16)))
                (local.set $qp (i32.add (local.get $qp) (i32.const 16)))
                (local.set $l (i32.add (local.get $l) (i32.const 1)))
                (br $lane)))
            (local.set $h (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
            (local.set $d
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $h)) (i32x4.extract_lane 1 (local.get $h)))
                (i32.add (i32x4.extract_lane 2 (local.get $h)) (i32x4.extract_lane 3 (local.get $h)))))
            (if (local.get $masked) (then (local.set $d (local.get $sentinel))))
            (i32.store (local.get $distOut) (local.get $d))
            (local.set $slot (i32.add (local.get $histOut) (i32.shl (local.get $d) (i32.const 2))))
            (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
            (local.set $distOut (i32.add (local.get $distOut) (i32.shl (local.get $n) (i32.const 2))))
            (local.set $histOut (i32.add (local.get $histOut) (local.get $histBytes)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $query)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $items))))

  ;; Indices i with dist[i] < th, and the first `ties` with dist[i] = th, in index order, written to `out`
  ;; (i32 each). Returns how many were written.
  (func (export "collect") (param $dist i32) (param $n i32) (param $th i32) (param $ties i32) (param $out i32) (result i32)
    (local $i i32) (local $d i32) (local $c i32)
    (block $done
      (loop $items
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $d (i32.load (i32.add (local.get $dist) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.lt_u (local.get $d) (local.get $th))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $c) (i32.const 2))) (local.get $i))
            (local.set $c (i32.add (local.get $c) (i32.const 1))))
          (else
            (if (i32.and (i32.eq (local.get $d) (local.get $th)) (i32.gt_u (local.get $ties) (i32.const 0)))
              (then
                (i32.store (i32.add (local.get $out) (i32.shl (local.get $c) (i32.const 2))) (local.get $i))
                (local.set $c (i32.add (local.get $c) (i32.const 1)))
                (local.set $ties (i32.sub (local.get $ties) (i32.const 1)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $items)))
    (local.get $c))

  ;; Dot product of the vector at byte offset $v with the query at $q, both `stride` float32 (stride a multiple of 16).
  (func $dot (param $v i32) (param $q i32) (param $stride i32) (result f32)
    (local $t i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (block $done
      (loop $chunk
        (br_if $done (i32.ge_u (local.get $t) (local.get $stride)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=0 (local.get $v)) (v128.load offset=0 (local.get $q)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $v)) (v128.load offset=16 (local.get $q)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (local.get $v)) (v128.load offset=32 (local.get $q)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (local.get $v)) (v128.load offset=48 (local.get $q)))))
        (local.set $v (i32.add (local.get $v) (i32.const 64)))
        (local.set $q (i32.add (local.get $q) (i32.const 64)))
        (local.set $t (i32.add (local.get $t) (i32.const 16)))
        (br $chunk)))
    (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
      (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))

  ;; out[j] = vecs[idx[j]] · q for j < m (f32 each).
  (func (export "dots") (param $vecs i32) (param $stride i32) (param $idx i32) (param $m i32) (param $q i32) (param $out i32)
    (local $j i32) (local $bytes i32)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (block $done
      (loop $items
        (br_if $done (i32.ge_u (local.get $j) (local.get $m)))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 2)))
          (call $dot
            (i32.add (local.get $vecs) (i32.mul (i32.load (i32.add (local.get $idx) (i32.shl (local.get $j) (i32.const 2)))) (local.get $bytes)))
            (local.get $q)
            (local.get $stride)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $items))))

  ;; out[i] = vecs[i] · q for every i < n (f32 each).
  (func (export "dotsAll") (param $vecs i32) (param $stride i32) (param $n i32) (param $q i32) (param $out i32)
    (local $i i32) (local $bytes i32) (local $v i32)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $v (local.get $vecs))
    (block $done
      (loop $items
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2))) (call $dot (local.get $v) (local.get $q) (local.get $stride)))
        (local.set $v (i32.add (local.get $v) (local.get $bytes)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $items)))))
