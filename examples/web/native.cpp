// The page's engine (web.cpp) compiled natively, for the browser test: the same request in, the
// same JSON out, computed by the host's compiler and libm instead of Emscripten's. The test holds
// the page's operator table to this, figure for figure.
//     native REQUEST_JSON
#include <cstdio>

#include "web.cpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fputs("usage: native REQUEST_JSON\n", stderr);
        return 2;
    }
    std::puts(ridgeline_evaluate(argv[1]));
    return 0;
}
