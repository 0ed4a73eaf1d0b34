// GE_API marks what libge.so exports: the classes and functions of include/ge.
//
// libge is built with hidden visibility, so everything else in it (the graph,
// pass, device, runtime and quantization layers) stays internal and can change
// without breaking a program linked against it; abi/check_libge_exports.py
// (the abi.libge_exports test) fails when an internal symbol is exported.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define GE_API __attribute__((visibility("default")))
#else
#define GE_API
#endif
