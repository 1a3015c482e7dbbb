/*
 * dpcpp_support.cpp - what the runtime's dpcpp device (dpcpp.c) asks of the
 * SYCL runtime: a queue on a device, its name, USM device memory, copies,
 * waiting. The runtime holds this file as text; the SYCL compiler the
 * device uses builds it once (per compiler and version) into the kernel
 * cache, and the device dlopens it. Each function is extern "C" and
 * returns NULL on success or an error message (a SYCL exception's what(),
 * in a buffer of the calling thread, good until its next call here); none
 * throws.
 *
 * The queue is in order: a copy comes after the kernels submitted before
 * it, as on OpenCL's in-order queue and CUDA's default stream. The errors
 * of kernels that failed on the device (asynchronous) go to our handler,
 * which keeps their messages for the next oklc_sycl_wait: without one, the
 * SYCL runtime's default handler would end the process.
 */
#include <sycl/sycl.hpp>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace {

thread_local char message[2048];

const char *fail(const char *call, const char *why)
{
  std::snprintf(message, sizeof message, "%s: %s", call, why);
  return message;
}

/* The message of the exception being handled. */
const char *caught(const char *call)
{
  try {
    throw;
  } catch (const std::exception &e) {
    return fail(call, e.what());
  } catch (...) {
    return fail(call, "an exception that is not a std::exception");
  }
}

struct Queue {
  std::mutex lock;       /* the handler may run on the SYCL runtime's threads */
  std::string errors;    /* asynchronous errors since the last wait */
  sycl::queue queue;     /* last: destroyed first, while the handler's data lives */

  explicit Queue(const sycl::device &d)
      : queue(d, [this](sycl::exception_list list) { keep(list); },
              sycl::property_list{sycl::property::queue::in_order()})
  {
  }

  void add(const char *what)
  {
    std::lock_guard<std::mutex> g(lock);
    if (!errors.empty())
      errors += "; ";
    errors += what;
  }

  void keep(const sycl::exception_list &list)
  {
    for (const std::exception_ptr &e : list) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception &x) {
        add(x.what());
      } catch (...) {
        add("an exception that is not a std::exception");
      }
    }
  }
};

Queue *of(void *handle)
{
  return static_cast<Queue *>(handle);
}

} // namespace

/* A queue on device `index` of sycl::device::get_devices(); *count: how
 * many there are. An index out of range gives no queue and no error. */
extern "C" const char *oklc_sycl_create(int index, int *count, void **handle, void **queue)
{
  *count = 0;
  *handle = nullptr;
  *queue = nullptr;
  try {
    std::vector<sycl::device> all = sycl::device::get_devices();
    *count = all.size() > 1024 ? 1024 : static_cast<int>(all.size());
    if (index < 0 || index >= *count)
      return nullptr;
    Queue *q = new Queue(all[static_cast<std::size_t>(index)]);
    *handle = q;
    *queue = &q->queue;
    return nullptr;
  } catch (...) {
    return caught("sycl::device::get_devices");
  }
}

/* Waits for what the queue holds (errors are dropped: the device closes). */
extern "C" void oklc_sycl_destroy(void *handle)
{
  try {
    of(handle)->queue.wait();
  } catch (...) {
  }
  delete of(handle);
}

extern "C" const char *oklc_sycl_name(void *handle, char *name, std::size_t size)
{
  try {
    std::string n = of(handle)->queue.get_device().get_info<sycl::info::device::name>();
    std::snprintf(name, size, "%s", n.c_str());
    return nullptr;
  } catch (...) {
    return caught("sycl::device::get_info<sycl::info::device::name>");
  }
}

/* *ptr NULL without a message: the device is out of memory. */
extern "C" const char *oklc_sycl_malloc(void *handle, std::size_t bytes, void **ptr)
{
  *ptr = nullptr;
  try {
    *ptr = sycl::malloc_device(bytes, of(handle)->queue);
    return nullptr;
  } catch (...) {
    return caught("sycl::malloc_device");
  }
}

/* After the queue's work: a kernel still running may use the memory. */
extern "C" const char *oklc_sycl_free(void *handle, void *ptr)
{
  try {
    of(handle)->queue.wait();
    sycl::free(ptr, of(handle)->queue);
    return nullptr;
  } catch (...) {
    return caught("sycl::free");
  }
}

/* Host to device or device to host (USM pointers), after the queue's work. */
extern "C" const char *oklc_sycl_copy(void *handle, void *dst, const void *src,
                                      std::size_t bytes)
{
  try {
    of(handle)->queue.memcpy(dst, src, bytes).wait();
    return nullptr;
  } catch (...) {
    return caught("sycl::queue::memcpy");
  }
}

/* Waits for the queue; the errors since the last wait, if any. */
extern "C" const char *oklc_sycl_wait(void *handle)
{
  Queue *q = of(handle);
  try {
    q->queue.wait_and_throw();
  } catch (...) {
    q->add(caught("sycl::queue::wait_and_throw"));
  }
  std::lock_guard<std::mutex> g(q->lock);
  if (q->errors.empty())
    return nullptr;
  std::snprintf(message, sizeof message, "%s", q->errors.c_str());
  q->errors.clear();
  return message;
}
