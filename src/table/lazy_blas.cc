// The BLAS and LAPACK routines faiss calls (table/ann_index.cc), bound on first use.
//
// faiss is a static library that calls 13 Fortran routines of the system's BLAS and LAPACK.
// Linking those libraries directly made every process load OpenBLAS and its runtime at start and
// resolve some 15,000 symbol relocations — more than half of a fresh process's dynamic-linking
// time — although only a vector index build or search ever calls them. These definitions take
// their place at link time: the first call of any of them opens libblas.so.3 or liblapack.so.3
// (the Debian alternatives the build linked before) with dlopen and forwards every call to the
// real routine. Every argument of these routines is a pointer (Fortran passes by reference), so a
// forwarder declared with the routine's number of pointer arguments passes them exactly as the
// caller did. Thread-safe: each library is opened once, each routine looked up once.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

using P = void*;

// The library `soname`, opened once; aborts naming it when it cannot be opened (the build
// depends on it: scripts/install-deps.sh installs it).
void* Library(const char* soname, std::once_flag& once, void*& handle) {
  std::call_once(once, [&] {
    handle = ::dlopen(soname, RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "omnigraph: cannot load %s for the vector index: %s\n", soname,
                   ::dlerror());
      std::abort();
    }
  });
  return handle;
}

void* Blas() {
  static std::once_flag once;
  static void* handle = nullptr;
  return Library("libblas.so.3", once, handle);
}

void* Lapack() {
  static std::once_flag once;
  static void* handle = nullptr;
  return Library("liblapack.so.3", once, handle);
}

// The routine `name` of `library`, looked up once.
template <typename F>
F Routine(std::atomic<F>& cached, void* (*library)(), const char* name) {
  F f = cached.load(std::memory_order_acquire);
  if (f != nullptr) return f;
  f = reinterpret_cast<F>(::dlsym(library(), name));
  if (f == nullptr) {
    std::fprintf(stderr, "omnigraph: the BLAS/LAPACK library has no %s\n", name);
    std::abort();
  }
  cached.store(f, std::memory_order_release);
  return f;
}

}  // namespace

// One forwarder per routine, by its number of (pointer) arguments.
#define OMNIGRAPH_FORWARD_6(lib, name)                    \
  extern "C" int name(P a, P b, P c, P d, P e, P f) {     \
    using Fn = int (*)(P, P, P, P, P, P);                 \
    static std::atomic<Fn> cached{nullptr};               \
    return Routine(cached, lib, #name)(a, b, c, d, e, f); \
  }
#define OMNIGRAPH_FORWARD_7(lib, name)                       \
  extern "C" int name(P a, P b, P c, P d, P e, P f, P g) {   \
    using Fn = int (*)(P, P, P, P, P, P, P);                 \
    static std::atomic<Fn> cached{nullptr};                  \
    return Routine(cached, lib, #name)(a, b, c, d, e, f, g); \
  }
#define OMNIGRAPH_FORWARD_8(lib, name)                          \
  extern "C" int name(P a, P b, P c, P d, P e, P f, P g, P h) { \
    using Fn = int (*)(P, P, P, P, P, P, P, P);                 \
    static std::atomic<Fn> cached{nullptr};                     \
    return Routine(cached, lib, #name)(a, b, c, d, e, f, g, h); \
  }
#define OMNIGRAPH_FORWARD_9(lib, name)                               \
  extern "C" int name(P a, P b, P c, P d, P e, P f, P g, P h, P i) { \
    using Fn = int (*)(P, P, P, P, P, P, P, P, P);                   \
    static std::atomic<Fn> cached{nullptr};                          \
    return Routine(cached, lib, #name)(a, b, c, d, e, f, g, h, i);   \
  }
#define OMNIGRAPH_FORWARD_10(lib, name)                                   \
  extern "C" int name(P a, P b, P c, P d, P e, P f, P g, P h, P i, P j) { \
    using Fn = int (*)(P, P, P, P, P, P, P, P, P, P);                     \
    static std::atomic<Fn> cached{nullptr};                               \
    return Routine(cached, lib, #name)(a, b, c, d, e, f, g, h, i, j);     \
  }
#define OMNIGRAPH_FORWARD_13(lib, name)                                                  \
  extern "C" int name(P a, P b, P c, P d, P e, P f, P g, P h, P i, P j, P k, P l, P m) { \
    using Fn = int (*)(P, P, P, P, P, P, P, P, P, P, P, P, P);                           \
    static std::atomic<Fn> cached{nullptr};                                              \
    return Routine(cached, lib, #name)(a, b, c, d, e, f, g, h, i, j, k, l, m);           \
  }
#define OMNIGRAPH_FORWARD_14(lib, name)                                                       \
  extern "C" int name(P a, P b, P c, P d, P e, P f, P g, P h, P i, P j, P k, P l, P m, P n) { \
    using Fn = int (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P);                             \
    static std::atomic<Fn> cached{nullptr};                                                   \
    return Routine(cached, lib, #name)(a, b, c, d, e, f, g, h, i, j, k, l, m, n);             \
  }

// BLAS: sgemm/dgemm (transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) and ssyrk
// (uplo, trans, n, k, alpha, a, lda, beta, c, ldc).
OMNIGRAPH_FORWARD_13(Blas, sgemm_)
OMNIGRAPH_FORWARD_13(Blas, dgemm_)
OMNIGRAPH_FORWARD_10(Blas, ssyrk_)
// LAPACK: the factorizations, inverses, least squares and eigen solvers faiss's PCA, OPQ and
// ITQ transforms use, with LAPACK's documented argument lists.
OMNIGRAPH_FORWARD_14(Lapack, sgesvd_)  // jobu jobvt m n a lda s u ldu vt ldvt work lwork info
OMNIGRAPH_FORWARD_14(Lapack, dgesvd_)
OMNIGRAPH_FORWARD_6(Lapack, sgetrf_)  // m n a lda ipiv info
OMNIGRAPH_FORWARD_6(Lapack, dgetrf_)
OMNIGRAPH_FORWARD_7(Lapack, sgetri_)  // n a lda ipiv work lwork info
OMNIGRAPH_FORWARD_7(Lapack, dgetri_)
OMNIGRAPH_FORWARD_9(Lapack, dsyev_)    // jobz uplo n a lda w work lwork info
OMNIGRAPH_FORWARD_14(Lapack, sgelsd_)  // m n nrhs a lda b ldb s rcond rank work lwork iwork info
OMNIGRAPH_FORWARD_8(Lapack, sgeqrf_)   // m n a lda tau work lwork info
OMNIGRAPH_FORWARD_9(Lapack, sorgqr_)   // m n k a lda tau work lwork info
