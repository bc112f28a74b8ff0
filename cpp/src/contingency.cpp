#include "dpfair/contingency.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpfair/parallel.hpp"

namespace dpfair {

namespace {

struct TestShape {
  std::int64_t i = 0, j = 0, ri = 0, rj = 0, nz = 1;
  std::vector<std::int64_t> cond;
};

TestShape shape_of(const std::int64_t* row, std::ptrdiff_t width, std::ptrdiff_t p, const std::int64_t* cats,
                   std::int64_t max_cells) {
  TestShape s;
  s.i = row[0];
  s.j = row[1];
  auto check_var = [&](std::int64_t v) {
    if (v < 0 || v >= p) throw std::invalid_argument("test variable index out of range [0, p)");
  };
  check_var(s.i);
  check_var(s.j);
  if (s.i == s.j) throw std::invalid_argument("a test needs two different variables i != j");
  for (std::ptrdiff_t c = 2; c < width; ++c) {
    const std::int64_t k = row[c];
    if (k < 0) continue;
    check_var(k);
    if (k == s.i || k == s.j || std::find(s.cond.begin(), s.cond.end(), k) != s.cond.end()) {
      throw std::invalid_argument("a conditioning variable repeats i, j or another conditioning variable");
    }
    s.cond.push_back(k);
  }
  s.ri = cats[s.i];
  s.rj = cats[s.j];
  double cells = static_cast<double>(s.ri) * static_cast<double>(s.rj);
  for (std::int64_t k : s.cond) {
    s.nz *= cats[k];
    cells *= static_cast<double>(cats[k]);
  }
  if (cells > static_cast<double>(max_cells)) {
    throw std::invalid_argument("a contingency table has more than max_cells cells (" + std::to_string(cells) + ")");
  }
  return s;
}

double g2_of_table(const std::vector<std::int64_t>& N, std::int64_t nz, std::int64_t rj, std::int64_t ri,
                   std::vector<double>& na, std::vector<double>& nb) {
  double total = 0.0;
  na.assign(static_cast<std::size_t>(ri), 0.0);
  nb.assign(static_cast<std::size_t>(rj), 0.0);
  for (std::int64_t z = 0; z < nz; ++z) {
    const std::int64_t* layer = N.data() + z * rj * ri;
    std::fill(na.begin(), na.end(), 0.0);
    std::fill(nb.begin(), nb.end(), 0.0);
    double nzsum = 0.0;
    for (std::int64_t b = 0; b < rj; ++b) {
      for (std::int64_t a = 0; a < ri; ++a) {
        const double v = static_cast<double>(layer[b * ri + a]);
        na[a] += v;
        nb[b] += v;
        nzsum += v;
      }
    }
    if (nzsum == 0.0) continue;
    for (std::int64_t b = 0; b < rj; ++b) {
      for (std::int64_t a = 0; a < ri; ++a) {
        const std::int64_t o = layer[b * ri + a];
        if (o > 0) {
          const double ov = static_cast<double>(o);
          total += ov * std::log(ov * nzsum / (na[a] * nb[b]));
        }
      }
    }
  }
  return 2.0 * total;
}

}  // namespace

void contingency_g2(const std::int32_t* codes_t, std::ptrdiff_t n, std::ptrdiff_t p, const std::int64_t* n_categories,
                    const std::int64_t* tests, std::ptrdiff_t n_tests, std::ptrdiff_t width, std::int64_t max_cells,
                    double* g2, int n_threads) {
  if (n < 0 || p < 2 || n_tests < 0 || width < 2) throw std::invalid_argument("bad sizes for contingency_g2");
  for (std::ptrdiff_t v = 0; v < p; ++v) {
    if (n_categories[v] < 1) throw std::invalid_argument("n_categories must be >= 1");
  }
  // Validate every test before any work (so an error leaves nothing half-computed).
  std::vector<TestShape> shapes;
  shapes.reserve(static_cast<std::size_t>(n_tests));
  std::vector<char> used(static_cast<std::size_t>(p), 0);
  for (std::ptrdiff_t t = 0; t < n_tests; ++t) {
    shapes.push_back(shape_of(tests + t * width, width, p, n_categories, max_cells));
    const TestShape& s = shapes.back();
    used[static_cast<std::size_t>(s.i)] = used[static_cast<std::size_t>(s.j)] = 1;
    for (std::int64_t k : s.cond) used[static_cast<std::size_t>(k)] = 1;
  }
  // The codes index the tables: one outside 0..n_categories[v]-1 would count into another cell or past the table.
  for (std::ptrdiff_t v = 0; v < p; ++v) {
    if (!used[static_cast<std::size_t>(v)]) continue;
    const std::int32_t* x = codes_t + v * n;
    const std::int64_t r = n_categories[v];
    for (std::ptrdiff_t row = 0; row < n; ++row) {
      if (x[row] < 0 || x[row] >= r) {
        throw std::invalid_argument("codes of variable " + std::to_string(v) + " must lie in 0..n_categories-1");
      }
    }
  }
  const int threads = (n_tests * static_cast<std::ptrdiff_t>(n) < 200000) ? 1 : resolve_threads(n_threads);
  parallel_for(n_tests, threads, [&](int, std::ptrdiff_t begin, std::ptrdiff_t end) {
    std::vector<std::int64_t> key(static_cast<std::size_t>(n));
    std::vector<std::int64_t> counts;
    std::vector<double> na, nb;
    for (std::ptrdiff_t t = begin; t < end; ++t) {
      const TestShape& s = shapes[static_cast<std::size_t>(t)];
      const std::int32_t* xi = codes_t + s.i * n;
      const std::int32_t* xj = codes_t + s.j * n;
      std::fill(key.begin(), key.end(), 0);
      for (std::int64_t k : s.cond) {
        const std::int32_t* xk = codes_t + k * n;
        const std::int64_t rk = n_categories[k];
        for (std::ptrdiff_t r = 0; r < n; ++r) key[r] = key[r] * rk + xk[r];
      }
      counts.assign(static_cast<std::size_t>(s.nz * s.rj * s.ri), 0);
      for (std::ptrdiff_t r = 0; r < n; ++r) {
        ++counts[static_cast<std::size_t>((key[r] * s.rj + xj[r]) * s.ri + xi[r])];
      }
      g2[t] = g2_of_table(counts, s.nz, s.rj, s.ri, na, nb);
    }
  });
}

}  // namespace dpfair
