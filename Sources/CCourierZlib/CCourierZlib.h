// The system zlib, for AsyncHTTPClientTransport's response inflater (see ResponseInflater.swift
// for why Courier inflates itself). zlib ships with every Apple SDK and with every Linux that
// runs Swift (`zlib1g-dev` is among the toolchain's documented dependencies).
#ifndef C_COURIER_ZLIB_H
#define C_COURIER_ZLIB_H

#include <zlib.h>

// `inflateInit2` is a macro (it passes the library's version and the stream's size): Swift
// cannot call it directly.
static inline int CCourierZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
