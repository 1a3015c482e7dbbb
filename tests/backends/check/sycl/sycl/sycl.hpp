/*
 * CHECKING HEADER - NOT AN IMPLEMENTATION OF SYCL.
 *
 * Declarations of the SYCL 2020 names that oklc's DPC++ backend writes (and
 * the runtime's support code, src/runtime/dpcpp_support.cpp, calls), with
 * the types and constraints the SYCL 2020 specification gives them, so
 * that `clang++ -std=c++17 -fsyntax-only -I tests/backends/check/sycl`
 * checks generated code the way a SYCL compiler's front end would: names,
 * types, overloads, const-callable kernels, which atomic types and address
 * spaces sycl::atomic_ref takes, which groups a barrier takes. Nothing here
 * runs or links: no function has a body that does the work, and no kernel
 * ever executes. Code that passes this check has NOT been compiled by a
 * SYCL compiler nor run (docs/backends.md says what was).
 */
#ifndef OKLC_SYCL_CHECKING_HEADER
#define OKLC_SYCL_CHECKING_HEADER

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/* 5.6: SYCL compilers predefine it (this header stands for one) */
#define SYCL_LANGUAGE_VERSION 202012

namespace sycl {

/* scalar data types: half, IEEE binary16, a class of its own (an
 * implementation's has arithmetic of half too; converting through float,
 * this one checks what code may write) */
class half {
public:
  half() = default;
  half(float value);
  operator float() const;
  half &operator+=(const half &rhs);
  half &operator-=(const half &rhs);
  half &operator*=(const half &rhs);
  half &operator/=(const half &rhs);

private:
  unsigned short bits;
};

/* 4.7.2 exceptions */
class exception : public std::exception {
public:
  const char *what() const noexcept override;
};

/* 4.13.2 exception_list, async_handler: a queue's asynchronous errors */
class exception_list {
public:
  using value_type = std::exception_ptr;
  using reference = value_type &;
  using const_reference = const value_type &;
  using size_type = std::size_t;
  using iterator = std::vector<std::exception_ptr>::const_iterator;   /* unspecified */
  using const_iterator = std::vector<std::exception_ptr>::const_iterator;
  size_type size() const;
  iterator begin() const;
  iterator end() const;
};
using async_handler = std::function<void(sycl::exception_list)>;

/* 4.5.4 property_list; 4.6.5.3 queue properties */
class property_list {
public:
  template <typename... PropertyN> property_list(PropertyN... props);
};
namespace property {
namespace queue {
class in_order {
public:
  in_order();
};
} // namespace queue
} // namespace property

/* 4.7.4 enumerations of the memory model */
enum class memory_order { relaxed, acquire, release, acq_rel, seq_cst };
enum class memory_scope { work_item, sub_group, work_group, device, system };

namespace access {
enum class address_space { global_space, local_space, constant_space, private_space,
                           generic_space };
enum class fence_space { local_space, global_space, global_and_local };
enum class decorated { no, yes, legacy };
} // namespace access

/* 4.9.1 range, id, nd_range */
template <int Dimensions = 1> class range {
public:
  template <int D = Dimensions, std::enable_if_t<D == 1, int> = 0> range(size_t dim0);
  template <int D = Dimensions, std::enable_if_t<D == 2, int> = 0> range(size_t dim0, size_t dim1);
  template <int D = Dimensions, std::enable_if_t<D == 3, int> = 0>
  range(size_t dim0, size_t dim1, size_t dim2);
  size_t get(int dimension) const;
  size_t size() const;
  size_t operator[](int dimension) const;
};

template <int Dimensions = 1> class id {
public:
  size_t get(int dimension) const;
  size_t operator[](int dimension) const;
};

template <int Dimensions = 1> class nd_range {
public:
  nd_range(range<Dimensions> globalSize, range<Dimensions> localSize);
  range<Dimensions> get_global_range() const;
  range<Dimensions> get_local_range() const;
  range<Dimensions> get_group_range() const;
};

/* 4.9.1.7 group, 4.9.1.8 sub_group */
template <int Dimensions = 1> class group {
public:
  static constexpr memory_scope fence_scope = memory_scope::work_group;
  size_t get_group_id(int dimension) const;
  size_t get_local_id(int dimension) const;
  range<Dimensions> get_local_range() const;
};

class sub_group {
public:
  static constexpr memory_scope fence_scope = memory_scope::sub_group;
  uint32_t get_local_linear_id() const;
  uint32_t get_local_linear_range() const;
};

template <class T> struct is_group : std::false_type {};
template <int D> struct is_group<group<D>> : std::true_type {};
template <> struct is_group<sub_group> : std::true_type {};
template <class T> inline constexpr bool is_group_v = is_group<std::decay_t<T>>::value;

/* 4.9.1.5 nd_item */
template <int Dimensions = 1> class nd_item {
public:
  nd_item() = delete;   /* only the runtime makes them */
  size_t get_global_id(int dimension) const;
  size_t get_local_id(int dimension) const;
  size_t get_group(int dimension) const;
  group<Dimensions> get_group() const;
  sub_group get_sub_group() const;
  size_t get_group_range(int dimension) const;
  size_t get_local_range(int dimension) const;
  size_t get_global_range(int dimension) const;
};

/* 4.15.1 group_barrier: on a work-group or a sub-group only */
template <typename Group>
void group_barrier(Group g, memory_scope fence_scope = Group::fence_scope) {
  static_assert(is_group_v<Group>, "sycl::group_barrier takes a sycl::group or sycl::sub_group");
  (void)g, (void)fence_scope;
}

/* 4.15.3 atomic_ref: T is int, unsigned int, long, unsigned long, long long,
 * unsigned long long, float, double (or a pointer); the address space is
 * global, local or generic; the bitwise operations on integers only. */
template <typename T, memory_order DefaultOrder, memory_scope DefaultScope,
          access::address_space AddressSpace = access::address_space::generic_space>
class atomic_ref {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, unsigned int> ||
                    std::is_same_v<T, long> || std::is_same_v<T, unsigned long> ||
                    std::is_same_v<T, long long> || std::is_same_v<T, unsigned long long> ||
                    std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_pointer_v<T>,
                "sycl::atomic_ref of a type SYCL 2020 does not list");
  static_assert(AddressSpace == access::address_space::global_space ||
                    AddressSpace == access::address_space::local_space ||
                    AddressSpace == access::address_space::generic_space,
                "sycl::atomic_ref in an address space other than global, local, generic");

public:
  using value_type = T;
  explicit atomic_ref(T &ref);
  atomic_ref(const atomic_ref &);
  void store(T operand, memory_order order = DefaultOrder,
             memory_scope scope = DefaultScope) const noexcept;
  T load(memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const noexcept;
  T exchange(T operand, memory_order order = DefaultOrder,
             memory_scope scope = DefaultScope) const noexcept;
  bool compare_exchange_weak(T &expected, T desired, memory_order success = DefaultOrder,
                             memory_scope scope = DefaultScope) const noexcept;
  bool compare_exchange_strong(T &expected, T desired, memory_order success = DefaultOrder,
                               memory_scope scope = DefaultScope) const noexcept;
  template <class U = T, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  T fetch_add(U operand, memory_order order = DefaultOrder,
              memory_scope scope = DefaultScope) const noexcept;
  template <class U = T, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  T fetch_sub(U operand, memory_order order = DefaultOrder,
              memory_scope scope = DefaultScope) const noexcept;
  template <class U = T, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  T fetch_min(U operand, memory_order order = DefaultOrder,
              memory_scope scope = DefaultScope) const noexcept;
  template <class U = T, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0>
  T fetch_max(U operand, memory_order order = DefaultOrder,
              memory_scope scope = DefaultScope) const noexcept;
  template <class U = T, std::enable_if_t<std::is_integral_v<U>, int> = 0>
  T fetch_and(U operand, memory_order order = DefaultOrder,
              memory_scope scope = DefaultScope) const noexcept;
  template <class U = T, std::enable_if_t<std::is_integral_v<U>, int> = 0>
  T fetch_or(U operand, memory_order order = DefaultOrder,
             memory_scope scope = DefaultScope) const noexcept;
  template <class U = T, std::enable_if_t<std::is_integral_v<U>, int> = 0>
  T fetch_xor(U operand, memory_order order = DefaultOrder,
              memory_scope scope = DefaultScope) const noexcept;
};

class handler;

namespace detail {
/* what a[i] of a D-dimensional accessor gives for D > 1: indexed again,
 * one dimension fewer, down to the element (4.7.6.11: "__unspecified__") */
template <typename DataT, int Dimensions> struct subscript {
  subscript<DataT, Dimensions - 1> operator[](size_t index) const;
};
template <typename DataT> struct subscript<DataT, 1> {
  DataT &operator[](size_t index) const;
};
} // namespace detail

/* 4.7.6.11 local_accessor: work-group local memory, made in a command
 * group, read through operator[] in the kernel */
template <typename DataT, int Dimensions = 1> class local_accessor {
public:
  template <int D = Dimensions, std::enable_if_t<(D > 0), int> = 0>
  local_accessor(range<Dimensions> allocationSize, handler &commandGroupHandler);
  local_accessor(const local_accessor &);
  template <int D = Dimensions, std::enable_if_t<D == 1, int> = 0>
  DataT &operator[](size_t index) const;
  template <int D = Dimensions, std::enable_if_t<(D > 1), int> = 0>
  detail::subscript<DataT, Dimensions - 1> operator[](size_t index) const;
  DataT &operator[](id<Dimensions> index) const;
  size_t size() const noexcept;
};

/* 4.6.5 event, 4.9.4 handler, 4.6.5 queue */
class event {
public:
  void wait();
  static void wait(const std::vector<event> &events);
};

class handler {
public:
  handler() = delete;  /* only a queue makes one, for submit */
  /* SYCL 2020 4.12.4: a kernel function object is const-callable */
  template <typename KernelName = void, typename KernelType, int Dimensions>
  void parallel_for(nd_range<Dimensions> executionRange, const KernelType &kernelFunc) {
    static_assert(std::is_invocable_v<const KernelType &, nd_item<Dimensions>>,
                  "the kernel of parallel_for(nd_range<D>) takes an nd_item<D>");
    (void)executionRange, (void)kernelFunc;
  }
};

/* device aspects (those oklc asks about; half needs fp16: 5.7) */
enum class aspect { cpu, gpu, accelerator, custom, emulated, host_debuggable, fp16, fp64,
                    atomic64 };

class device {
public:
  template <typename Param> typename Param::return_type get_info() const;
  bool has(aspect asp) const;
  static std::vector<device> get_devices();
};

namespace info {
namespace device {
struct name { using return_type = std::string; };
struct max_work_group_size { using return_type = size_t; };
struct global_mem_size { using return_type = uint64_t; };
} // namespace device
} // namespace info

class queue {
public:
  queue();
  explicit queue(const device &syclDevice, const property_list &propList = {});
  explicit queue(const device &syclDevice, const async_handler &asyncHandler,
                 const property_list &propList = {});
  device get_device() const;
  template <typename T> event submit(T cgf) {
    static_assert(std::is_invocable_v<T &, handler &>,
                  "queue::submit takes a command group function of a handler&");
    (void)cgf;
    return event();
  }
  void wait();
  void wait_and_throw();
  event memcpy(void *dest, const void *src, size_t numBytes);
  event memset(void *ptr, int value, size_t numBytes);
};

/* 4.8.3 unified shared memory */
void *malloc_device(size_t numBytes, const queue &syclQueue);
void *malloc_host(size_t numBytes, const queue &syclQueue);
void free(void *ptr, const queue &syclQueue);

} // namespace sycl

#endif
