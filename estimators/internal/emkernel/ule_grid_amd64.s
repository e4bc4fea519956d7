//go:build amd64 && !purego

#include "textflag.h"

// The byte offsets of the grid form's input arrays from β3 (gStride = 4112
// entries apart; ule_grid.go).
#define OFF_DELTA 32896
#define OFF_G 65792
#define OFF_QL 98688
#define OFF_QR 131584
#define OFF_DA 164480
#define OFF_DB 197376

// The arguments both kernels take (the coefficients' address in DX is
// each kernel's own), and the lanes: the run's sums (sb, sd, bad) start
// from zero, set here rather than loaded (Go's scalar stores of zeros
// would stall the vector loads: no store forwarding), and the products
// (p, e) go on from the lanes.
#define GRID_ARGS \
	MOVQ x+8(FP), SI \
	MOVQ wb+16(FP), DI \
	MOVQ lt+24(FP), R8 \
	MOVQ rt+32(FP), R9 \
	MOVQ cnt+40(FP), R11 \
	MOVQ n+48(FP), BX \
	MOVQ nbits+56(FP), R12 \
	MOVQ flags+72(FP), R10 \
	VMOVUPD gridMant<>(SB), Y15 \
	VMOVUPD gridOne<>(SB), Y14 \
	VMOVUPD gridExpLo<>(SB), Y13 \
	MOVQ lanes+64(FP), AX \
	VXORPD Y8, Y8, Y8 \
	VXORPD Y9, Y9, Y9 \
	VMOVUPD 64(AX), Y6 \
	VMOVDQU 96(AX), Y7 \
	VPXOR Y12, Y12, Y12 \
	XORQ CX, CX

// GRID_STORE writes the lanes back to *lanes (address in AX).
#define GRID_STORE \
	VMOVUPD Y8, (AX) \
	VMOVUPD Y9, 32(AX) \
	VMOVUPD Y6, 64(AX) \
	VMOVDQU Y7, 96(AX) \
	VMOVDQU Y12, 128(AX)

// GRID_FCHECK flags in Y12 the lanes whose factor F is 2^33 or more (its
// biased exponent above gridFHi): the second factor of a block
// (gridKernel).
#define GRID_FCHECK(F) \
	VPSRLQ $52, F, Y2 \
	VPCMPGTQ gridFHi<>(SB), Y2, Y10 \
	VPOR Y10, Y12, Y12

// GRID_RENORM multiplies the products P (Y6) by F, moves P's biased
// exponent (and sign) into E (Y7), leaves P in [1, 2), and flags in Y12
// the lanes whose exponent fell outside [gridExpLo, gridExpHi].
#define GRID_RENORM(F) \
	VMULPD F, Y6, Y6 \
	VPSRLQ $52, Y6, Y2 \
	VPADDQ Y2, Y7, Y7 \
	VPAND Y15, Y6, Y6 \
	VPOR Y14, Y6, Y6 \
	VPCMPGTQ Y2, Y13, Y10 \
	VPOR Y10, Y12, Y12 \
	VPCMPGTQ gridExpHi<>(SB), Y2, Y10 \
	VPOR Y10, Y12, Y12

// func gridBlocksAVX2(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n, nbits int, lanes *gridLanes, flags int)
//
// gridBlocksGo four cells at a time (n a multiple of 8: the products'
// exponents move after every second four), the same operations in the
// same order (the same fused multiply-adds: math.FMA there), so that the
// results agree bit for bit. flags (gridUseDB, gridUseDA, gridUseLt, gridUseRt) say which
// terms of D and which accumulations the run has: a term whose coefficient
// is 0 adds ±0 to D, which leaves its bits, and is skipped. The
// run's coefficients are read from k.vec, four copies each (filled by
// gridBlocks). The run's sums start from zero, the products go on from
// *lanes, and all are written back to it.
TEXT ·gridBlocksAVX2(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), DX
	ADDQ $80, DX                      // &k.vec
	GRID_ARGS

loop:
	// D = c1·β3 + c2·δ3 + β2·g3 + p2l·ql3 + p2r·qr3 + cB·δ3Θ(b3) − cA·δ3Θ(a3),
	// one multiplication, then fused multiply-adds in that order (gridD)
	VMOVUPD (SI)(CX*8), Y10           // β3
	VMOVUPD OFF_DELTA(SI)(CX*8), Y11  // δ3
	VMULPD 0(DX), Y10, Y0
	VFMADD231PD 32(DX), Y11, Y0
	VMOVUPD OFF_G(SI)(CX*8), Y1
	VFMADD231PD 64(DX), Y1, Y0
	VMOVUPD OFF_QL(SI)(CX*8), Y1
	VFMADD231PD 96(DX), Y1, Y0
	VMOVUPD OFF_QR(SI)(CX*8), Y1
	VFMADD231PD 128(DX), Y1, Y0
	BTQ $0, R10
	JCC nodb
	VMOVUPD OFF_DB(SI)(CX*8), Y1
	VFMADD231PD 192(DX), Y1, Y0

nodb:
	BTQ $1, R10
	JCC noda
	VMOVUPD OFF_DA(SI)(CX*8), Y1
	VFNMADD231PD 160(DX), Y1, Y0      // D

noda:
	VCVTPS2PD (R11)(CX*4), Y1         // n
	VDIVPD Y0, Y1, Y2                 // w = n/D
	VFMADD231PD Y2, Y10, Y8           // Σ w·β3
	VFMADD231PD Y2, Y11, Y9           // Σ w·δ3
	VMOVUPD (DI)(CX*8), Y10
	VFMADD231PD 64(DX), Y2, Y10
	VMOVUPD Y10, (DI)(CX*8)           // wb += w·β2
	VMULPD 224(DX), Y2, Y11           // w·δ2
	BTQ $2, R10
	JCC nolt
	VADDPD (R8)(CX*8), Y11, Y10
	VMOVUPD Y10, (R8)(CX*8)           // lt += w·δ2

nolt:
	BTQ $3, R10
	JCC nort
	VADDPD (R9)(CX*8), Y11, Y10
	VMOVUPD Y10, (R9)(CX*8)           // rt += w·δ2

nort:

	// LL: F = D^n from n's bits and D's repeated squares, P ·= F, and P's
	// binary exponent moves into E (gridLLCell).
	VCVTTPS2DQ (R11)(CX*4), X3
	VPMOVZXDQ X3, Y3                  // n, as integers
	VMOVAPD Y0, Y4                    // D^(2^b)
	VMOVAPD Y14, Y5                   // F = 1
	MOVQ R12, R13
	TESTQ R13, R13
	JZ renorm

bits:
	VPSLLQ $63, Y3, Y2                // bit b of n, in the sign
	VBLENDVPD Y2, Y4, Y14, Y2         // D^(2^b) where the bit is set, else 1
	VMULPD Y2, Y5, Y5
	VMULPD Y4, Y4, Y4
	VPSRLQ $1, Y3, Y3
	DECQ R13
	JNZ bits

renorm:
	// P ·= F; the exponent moves after the second four of each block of
	// eight only
	TESTQ $4, CX
	JNZ second
	VMULPD Y5, Y6, Y6
	JMP next

second:
	GRID_FCHECK(Y5)
	GRID_RENORM(Y5)

next:
	ADDQ $4, CX
	CMPQ CX, BX
	JLT loop

	GRID_STORE
	VZEROUPPER
	RET

// func gridBlocksAVX512(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n, nbits int, lanes *gridLanes, flags int)
//
// gridBlocksAVX2 eight cells at a time (any n > 0; the last block masked),
// in AVX-512: D, w, the accumulations and D^n over eight cells per
// instruction, and the lane sums (Σ w·β3, Σ w·δ3, the products) of the
// low four cells and then of the high four, so that each lane takes the
// same operations in the same order as in gridBlocksGo and the results
// agree bit for bit. The masked cells of a short last block add 0 to the
// sums and 1 to the products, whose exponents are still moved (as
// gridBlocksGo pads its last block). The inputs and accumulations of up to 7 cells past n must
// be readable (gStride's padding, or the next run's rows): only the
// counts, the division and the stores are masked.
TEXT ·gridBlocksAVX512(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), DX                  // the scalars c1 ... delta2
	GRID_ARGS
	VBROADCASTSD 0(DX), Z16           // c1
	VBROADCASTSD 8(DX), Z17           // c2
	VBROADCASTSD 16(DX), Z18          // β2
	VBROADCASTSD 24(DX), Z19          // p2l
	VBROADCASTSD 32(DX), Z20          // p2r
	VBROADCASTSD 40(DX), Z21          // cA
	VBROADCASTSD 48(DX), Z22          // cB
	VBROADCASTSD 56(DX), Z23          // δ2
	VBROADCASTSD gridOne<>(SB), Z30
	VPBROADCASTQ gridIntOne<>(SB), Z27
	KXNORW K2, K2, K2                 // all eight cells

loop8:
	// The last block may be short: its cells past n are masked out of
	// the counts, the division and the stores (w = 0, F = 1 there).
	MOVQ BX, R13
	SUBQ CX, R13
	CMPQ R13, $8
	JGE full8
	XORQ AX, AX
	BTSQ R13, AX
	DECQ AX
	KMOVW AX, K2

full8:
	VMOVUPD (SI)(CX*8), Z10           // β3
	VMOVUPD OFF_DELTA(SI)(CX*8), Z11  // δ3
	VMULPD Z16, Z10, Z0
	VFMADD231PD Z17, Z11, Z0
	VFMADD231PD OFF_G(SI)(CX*8), Z18, Z0
	VFMADD231PD OFF_QL(SI)(CX*8), Z19, Z0
	VFMADD231PD OFF_QR(SI)(CX*8), Z20, Z0
	BTQ $0, R10
	JCC nodb8
	VFMADD231PD OFF_DB(SI)(CX*8), Z22, Z0

nodb8:
	BTQ $1, R10
	JCC noda8
	VFNMADD231PD OFF_DA(SI)(CX*8), Z21, Z0 // D

noda8:
	VCVTPS2PD.Z (R11)(CX*4), K2, Z1   // n
	VCVTTPD2QQ Z1, Z24                // n, as integers
	VDIVPD.Z Z0, Z1, K2, Z2           // w = n/D
	VMOVUPD (DI)(CX*8), Z1
	VFMADD231PD Z18, Z2, Z1
	VMOVUPD Z1, K2, (DI)(CX*8)        // wb += w·β2
	VMULPD Z23, Z2, Z1                // w·δ2
	BTQ $2, R10
	JCC nolt8
	VADDPD (R8)(CX*8), Z1, Z3
	VMOVUPD Z3, K2, (R8)(CX*8)        // lt += w·δ2

nolt8:
	BTQ $3, R10
	JCC nort8
	VADDPD (R9)(CX*8), Z1, Z3
	VMOVUPD Z3, K2, (R9)(CX*8)        // rt += w·δ2

nort8:
	// the lane sums: the low four cells, then the high four
	VFMADD231PD Y2, Y10, Y8           // Σ w·β3
	VFMADD231PD Y2, Y11, Y9           // Σ w·δ3
	VEXTRACTF64X4 $1, Z2, Y3
	VEXTRACTF64X4 $1, Z10, Y4
	VEXTRACTF64X4 $1, Z11, Y5
	VFMADD231PD Y3, Y4, Y8
	VFMADD231PD Y3, Y5, Y9

	// F = D^n, eight cells
	VMOVAPD Z0, Z4                    // D^(2^b)
	VMOVAPD Z30, Z5                   // F = 1
	MOVQ R12, R13
	TESTQ R13, R13
	JZ renorm8
	DECQ R13
	JZ last8

bits8:
	VPTESTMQ Z27, Z24, K1              // bit b of n
	VMULPD Z4, Z5, K1, Z5             // F ·= D^(2^b) where it is set
	VMULPD Z4, Z4, Z4
	VPSRLQ $1, Z24, Z24
	DECQ R13
	JNZ bits8

last8:
	VPTESTMQ Z27, Z24, K1              // the top bit (its square is not needed)
	VMULPD Z4, Z5, K1, Z5

renorm8:
	VEXTRACTF64X4 $1, Z5, Y0          // F of the high four
	VMULPD Y5, Y6, Y6                 // P ·= F of the low four
	GRID_FCHECK(Y0)
	GRID_RENORM(Y0)                   // ... then of the high four, and the exponent moves

	ADDQ $8, CX
	CMPQ CX, BX
	JLT loop8

	MOVQ lanes+64(FP), AX
	GRID_STORE
	VZEROUPPER
	RET

DATA gridIntOne<>+0(SB)/8, $1
GLOBL gridIntOne<>(SB), RODATA|NOPTR, $8

DATA gridMant<>+0(SB)/8, $0x000FFFFFFFFFFFFF
DATA gridMant<>+8(SB)/8, $0x000FFFFFFFFFFFFF
DATA gridMant<>+16(SB)/8, $0x000FFFFFFFFFFFFF
DATA gridMant<>+24(SB)/8, $0x000FFFFFFFFFFFFF
GLOBL gridMant<>(SB), RODATA|NOPTR, $32

DATA gridOne<>+0(SB)/8, $0x3FF0000000000000
DATA gridOne<>+8(SB)/8, $0x3FF0000000000000
DATA gridOne<>+16(SB)/8, $0x3FF0000000000000
DATA gridOne<>+24(SB)/8, $0x3FF0000000000000
GLOBL gridOne<>(SB), RODATA|NOPTR, $32

DATA gridExpLo<>+0(SB)/8, $64
DATA gridExpLo<>+8(SB)/8, $64
DATA gridExpLo<>+16(SB)/8, $64
DATA gridExpLo<>+24(SB)/8, $64
GLOBL gridExpLo<>(SB), RODATA|NOPTR, $32

DATA gridFHi<>+0(SB)/8, $1055
DATA gridFHi<>+8(SB)/8, $1055
DATA gridFHi<>+16(SB)/8, $1055
DATA gridFHi<>+24(SB)/8, $1055
GLOBL gridFHi<>(SB), RODATA|NOPTR, $32

DATA gridExpHi<>+0(SB)/8, $1983
DATA gridExpHi<>+8(SB)/8, $1983
DATA gridExpHi<>+16(SB)/8, $1983
DATA gridExpHi<>+24(SB)/8, $1983
GLOBL gridExpHi<>(SB), RODATA|NOPTR, $32
