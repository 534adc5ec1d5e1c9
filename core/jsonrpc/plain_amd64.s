//go:build !purego

#include "textflag.h"

// func plainBlocksAVX2(p *byte, n int) int
//
// The offset of the first byte of p[:n] that is a quote, a backslash or
// below 0x20 as a signed byte (a control character or non-ASCII), looking
// at whole 32-byte blocks only; where fewer than 32 bytes are left if none.
TEXT ·plainBlocksAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	MOVQ $0x22, DX
	MOVQ DX, X1
	VPBROADCASTB X1, Y1 // '"'
	MOVQ $0x5c, DX
	MOVQ DX, X2
	VPBROADCASTB X2, Y2 // '\\'
	MOVQ $0x20, DX
	MOVQ DX, X3
	VPBROADCASTB X3, Y3 // 0x20

loop64:
	LEAQ 64(AX), DX
	CMPQ DX, CX
	JGT  loop32
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y7
	VPCMPEQB  Y0, Y1, Y4
	VPCMPEQB  Y0, Y2, Y5
	VPCMPGTB  Y0, Y3, Y6 // 0x20 > b, signed
	VPOR      Y4, Y5, Y4
	VPOR      Y4, Y6, Y4
	VPCMPEQB  Y7, Y1, Y8
	VPCMPEQB  Y7, Y2, Y9
	VPCMPGTB  Y7, Y3, Y10
	VPOR      Y8, Y9, Y8
	VPOR      Y8, Y10, Y8
	VPOR      Y4, Y8, Y11
	VPTEST    Y11, Y11
	JNZ       found64
	MOVQ      DX, AX
	JMP       loop64

found64:
	VPMOVMSKB Y4, DX
	TESTL     DX, DX
	JNZ       found
	ADDQ      $32, AX
	VPMOVMSKB Y8, DX
	JMP       found

loop32:
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JGT  done
	VMOVDQU   (SI)(AX*1), Y0
	VPCMPEQB  Y0, Y1, Y4
	VPCMPEQB  Y0, Y2, Y5
	VPCMPGTB  Y0, Y3, Y6
	VPOR      Y4, Y5, Y4
	VPOR      Y4, Y6, Y4
	VPMOVMSKB Y4, DX
	TESTL     DX, DX
	JNZ       found
	ADDQ      $32, AX
	JMP       loop32

found:
	BSFL DX, DX
	ADDQ DX, AX

done:
	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET

// func asciiBlocksAVX2(p *byte, n int) int
//
// The offset of the first byte of p[:n] at or above 0x80, looking at whole
// 32-byte blocks only; where fewer than 32 bytes are left if none.
TEXT ·asciiBlocksAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX

loop64:
	LEAQ 64(AX), DX
	CMPQ DX, CX
	JGT  loop32
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VPOR    Y0, Y1, Y2
	VPMOVMSKB Y2, BX
	TESTL   BX, BX
	JNZ     found64
	MOVQ    DX, AX
	JMP     loop64

found64:
	VPMOVMSKB Y0, DX
	TESTL     DX, DX
	JNZ       found
	ADDQ      $32, AX
	VPMOVMSKB Y1, DX
	JMP       found

loop32:
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JGT  done
	VMOVDQU   (SI)(AX*1), Y0
	VPMOVMSKB Y0, DX
	TESTL     DX, DX
	JNZ       found
	ADDQ      $32, AX
	JMP       loop32

found:
	BSFL DX, DX
	ADDQ DX, AX

done:
	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET
