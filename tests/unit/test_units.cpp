#include <catch2/catch.hpp>

#include <limits>

#include <ridgeline/units.hpp>

using namespace ridgeline;

TEST_CASE("units: a value is made with a unit and read back with any unit of its dimension", "[units]") {
    const Bytes weights = GB(16.06);
    CHECK(weights.in(bytes) == Approx(16.06e9).epsilon(1e-15));
    CHECK(weights.in(MB) == Approx(16060.0).epsilon(1e-15));
    CHECK(KiB(128).in(bytes) == 131072.0);
    CHECK(GiB(1).in(GB) == Approx(1.073741824).epsilon(1e-15));
    const Seconds t = weights / TB_per_s(3.35);
    CHECK(t.in(ms) == Approx(4.7940298507).epsilon(1e-10));
    CHECK((1.0 / t).in(per_s) == Approx(208.5927770859).epsilon(1e-10));
}

TEST_CASE("units: arithmetic keeps the dimension", "[units]") {
    Bytes b = GB(1);
    b += MB(500);
    b -= MB(250);
    b *= 2;
    b /= 4;
    CHECK(b.in(GB) == Approx(0.625).epsilon(1e-15));
    CHECK((GB(2) - GB(3)).in(GB) == -1.0);
    CHECK(GB(1) < GB(2));
    CHECK(ms(1) == us(1000));
    CHECK(static_cast<double>(GB(3) / GB(1.5)) == 2.0);
    CHECK((GB(1) * 3.0).in(GB) == 3.0);
}

TEST_CASE("units: is_finite tells a usable number from inf and NaN", "[units]") {
    CHECK(is_finite(GB(1)));
    CHECK_FALSE(is_finite(GB(std::numeric_limits<double>::infinity())));
    CHECK_FALSE(is_finite(GB(std::numeric_limits<double>::quiet_NaN())));
    volatile double zero = 0.0;
    CHECK_FALSE(is_finite(GB(1) / zero));
}
