// How far back a layer attends: every cached token, a sliding window of the last `tokens`, or
// aligned chunks of `tokens` (Llama 4's local attention), and for a top-k attention at most
// `cap` of those. Decode reads, memory, prefill pairs, generation sums and n* all take a layer's
// reach from here, so each shape's rule is written once.
//
// Chunked, as transformers masks it (chunked_overlay in src/transformers/masking_utils.py
// @2ccc6cae21faaf11631efa5fb9054687ae5dc931: key k is seen by query q when k // C == q // C,
// with the causal k <= q) and as vLLM serves it (ChunkedLocalAttention, which splits each
// request into per-chunk virtual batches): the token at position p attends to positions
// floor(p / C) * C .. p. A decode step at `context` n (n tokens cached, the new one at position
// n) therefore reads the n mod C cached tokens of its own chunk -- 8191 at n = 8191, none at
// n = 8192 (it starts a chunk and attends to itself alone), 1 at 8193 -- as a full layer reads n
// and a windowed one min(W, n), the new token itself not counted.
#pragma once

#include <cstdint>
#include <string>

namespace ridgeline {

struct Reach {
    std::int64_t tokens = 0;  // the window or chunk in tokens; 0: every cached token
    bool chunked = false;     // `tokens` is an aligned chunk, not a sliding window
    std::int64_t cap = 0;     // a top-k read: at most this many of what it sees; 0: all of them

    [[nodiscard]] constexpr bool is_chunked() const noexcept { return chunked && tokens > 0; }
    // Tokens since the last chunk boundary: context mod chunk (contexts are at most 2^40).
    [[nodiscard]] constexpr double into_chunk(double context) const noexcept {
        const auto C = static_cast<double>(tokens);
        double r = context - static_cast<double>(static_cast<std::int64_t>(context / C)) * C;
        if (r < 0) r += C;
        if (r >= C) r -= C;
        return r;
    }
    // A sliding window and a top-k both cap the read at a fixed count: the smaller one.
    [[nodiscard]] constexpr std::int64_t fixed_cap() const noexcept {
        const std::int64_t w = is_chunked() ? 0 : tokens;
        if (cap == 0) return w;
        return w == 0 || cap < w ? cap : w;
    }

    // Cached tokens a decode step at `context` reads.
    [[nodiscard]] constexpr double read(double context) const noexcept {
        const double seen = is_chunked() ? into_chunk(context) : context;
        const std::int64_t c = fixed_cap();
        return c > 0 && static_cast<double>(c) < seen ? static_cast<double>(c) : seen;
    }
    // Cached tokens one sequence keeps at `context` (a top-k keeps them all). A chunked layer
    // needs only the current chunk's n mod C, but a sequence at n >= C has held a whole chunk
    // (at the last token of each earlier one), and an engine must hold room for it: vLLM's
    // ChunkedLocalAttentionSpec (vllm/v1/kv_cache_interface.py @001cabc1be16a59a70d720ed61a13b678c060a18)
    // reserves attention_chunk_size tokens plus a step's. So the bound min(n, C), as a window.
    [[nodiscard]] constexpr double kept(double context) const noexcept {
        return tokens > 0 && static_cast<double>(tokens) < context ? static_cast<double>(tokens) : context;
    }
    // (query, cached token) pairs of prefill queries 0 .. x-1, each attending to itself too:
    // query j sees min(j + 1, W) under a window, (j mod C) + 1 in chunks, at most a top-k's k.
    [[nodiscard]] constexpr double pairs(double x) const noexcept {
        if (!is_chunked()) return triangle(x, fixed_cap());
        const auto C = static_cast<double>(tokens);
        const double rest = into_chunk(x), whole = (x - rest) / C;
        return whole * triangle(C, cap) + triangle(rest, cap);
    }

    // Whether read() grows on the piece of context that starts at `at`.
    [[nodiscard]] constexpr bool grows_at(double at) const noexcept {
        if (is_chunked()) return cap == 0 || into_chunk(at) < static_cast<double>(cap);
        const std::int64_t c = fixed_cap();
        return c == 0 || at < static_cast<double>(c);
    }
    // The next context past `at` where read() stops growing or restarts; -1 where there is none.
    [[nodiscard]] constexpr double next_corner(double at) const noexcept {
        if (is_chunked()) {
            const double start = at - into_chunk(at), C = static_cast<double>(tokens);
            if (cap > 0 && start + static_cast<double>(cap) > at && static_cast<double>(cap) < C)
                return start + static_cast<double>(cap);
            return start + C;
        }
        const std::int64_t c = fixed_cap();
        return c > 0 && static_cast<double>(c) > at ? static_cast<double>(c) : -1.0;
    }

    // For tables: "window 4096", "chunked 8192 (aligned chunks)"; "" when it reads everything.
    [[nodiscard]] std::string describe() const {
        if (tokens == 0) return "";
        return is_chunked() ? "chunked " + std::to_string(tokens) + " (aligned chunks)" : "window " + std::to_string(tokens);
    }

private:
    // Sum over j < x of min(j + 1, w); w = 0: no cap.
    static constexpr double triangle(double x, std::int64_t w) noexcept {
        if (w == 0 || x <= static_cast<double>(w)) return x * (x + 1) / 2;
        const auto W = static_cast<double>(w);
        return W * (W + 1) / 2 + (x - W) * W;
    }
};

}  // namespace ridgeline
