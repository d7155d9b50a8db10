// Compile-only: the unit algebra, including what must NOT compile, and format names. Building this
// file is the test.
#include <ridgeline/formats.hpp>
#include <ridgeline/units.hpp>

#include <concepts>

namespace {
using namespace ridgeline;

template <class A, class B>
concept addable = requires(A a, B b) { a + b; };
template <class A, class B>
concept comparable = requires(A a, B b) { a < b; };
template <class From, class To>
concept converts_explicitly = requires(From f) { static_cast<To>(f); };

// Dimensions combine: bytes over bandwidth is time, work over rate is time.
static_assert(std::same_as<decltype(Bytes{} / BytesPerSecond{}), Seconds>);
static_assert(std::same_as<decltype(Flops{} / FlopsPerSecond{}), Seconds>);
static_assert(std::same_as<decltype(Flops{} / Bytes{}), FlopsPerByte>);
static_assert(std::same_as<decltype(FlopsPerSecond{} / BytesPerSecond{}), FlopsPerByte>);
static_assert(std::same_as<decltype(Seconds{} / Seconds{}), Ratio>);
static_assert(std::same_as<decltype(1.0 / Seconds{}), PerSecond>);
static_assert(std::same_as<decltype(BytesPerSecond{} * Seconds{}), Bytes>);

// Mixing dimensions does not compile.
static_assert(addable<Bytes, Bytes>);
static_assert(!addable<Bytes, Seconds>);
static_assert(!addable<Bytes, Flops>);
static_assert(!addable<Seconds, PerSecond>);
static_assert(!addable<BytesPerSecond, FlopsPerSecond>);
static_assert(!addable<Bytes, double>);
static_assert(!comparable<Bytes, Seconds>);

// Only a plain ratio becomes a double, and only explicitly.
static_assert(converts_explicitly<Ratio, double>);
static_assert(!converts_explicitly<Bytes, double>);
static_assert(!converts_explicitly<Seconds, double>);
static_assert(!std::convertible_to<Ratio, double>);
static_assert(!std::constructible_from<Bytes, double>);  // a number needs a unit to become bytes

// GB are 1e9 bytes, GiB 2^30: the seeds mix them and so do users.
static_assert(GB(1).in(bytes) == 1e9);
static_assert(GiB(1).in(bytes) == 1073741824.0);
static_assert(KiB(128).in(bytes) == 131072.0);
static_assert(GiB(80).in(GB) > 85.89 && GiB(80).in(GB) < 85.90);
static_assert((GB(1) / GB_per_s(1)).in(s) == 1.0);
static_assert((TB(1) / TB_per_s(2)).in(ms) == 500.0);
static_assert(TFLOP_per_s(989).in(flop_per_s) == 989e12);
static_assert((TFLOP_per_s(1) / TB_per_s(1)).in(flop_per_byte) == 1.0);
static_assert(static_cast<double>(ms(3) / ms(1.5)) == 2.0);
static_assert((GB / s).scale == GB_per_s.scale);
static_assert(is_finite(GB(1)));

// Format names: AWQ's int4/g128 is 4 + 16/128 bits a weight (4.125); a group whose scale takes
// as many bits as its values (int4/g4: 16 bits of scale for 16 of values) is not a format.
static_assert(parse_format("int4/g128")->bits_per_element() == 4.125);
static_assert(parse_format("int4/g32/s32")->bits_per_element() == 5);
static_assert(parse_format("int4/g5")->bits_per_element() == 4 + 16.0 / 5);
static_assert(!parse_format("int4/g4"));
static_assert(!parse_format("int4/g1"));
static_assert(!parse_format("int8/g2"));
static_assert(!parse_format("int4/g128/s512"));
}  // namespace
