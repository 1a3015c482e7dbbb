// flags:
// Sizes and fixed-width integer types, with no system header.
template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };

static_assert(same<size_t, decltype(sizeof(0))>::value, "size_t");
static_assert(sizeof(ptrdiff_t) == sizeof(void *) && ptrdiff_t(-1) < 0, "ptrdiff_t");
static_assert(sizeof(int8_t) == 1 && sizeof(int16_t) == 2, "int8_t, int16_t");
static_assert(sizeof(int32_t) == 4 && sizeof(int64_t) == 8, "int32_t, int64_t");
static_assert(sizeof(uint8_t) == 1 && sizeof(uint16_t) == 2, "uint8_t, uint16_t");
static_assert(sizeof(uint32_t) == 4 && sizeof(uint64_t) == 8, "uint32_t, uint64_t");
static_assert(int8_t(-1) < 0 && int64_t(-1) < 0 && uint8_t(-1) > 0 && uint64_t(-1) > 0,
              "signedness");
static_assert(sizeof(intptr_t) == sizeof(void *) && intptr_t(-1) < 0, "intptr_t");
static_assert(sizeof(uintptr_t) == sizeof(void *) && uintptr_t(-1) > 0, "uintptr_t");
static_assert(same<uchar, unsigned char>::value && same<ushort, unsigned short>::value,
              "uchar, ushort");
static_assert(same<uint, unsigned int>::value && same<ulong, unsigned long>::value,
              "uint, ulong");

void packBytes(const int entries, const uint8_t *bytes, uint32_t *words, int64_t *sums) {
  for (int i = 0; i < entries; ++i) {
    const uint8_t *b = bytes + 4 * i;
    words[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
               (uint32_t)b[3] << 24;
    sums[i] = (int64_t)words[i] - (int16_t)b[0];
  }
  const ptrdiff_t span = (bytes + entries) - bytes;
  const size_t n = (size_t)span;
  uintptr_t address = (uintptr_t)words;
  intptr_t offset = (intptr_t)n;
  uint u = (uint)address;
  ulong l = (ulong)offset;
  ushort s = (ushort)u;
  uchar c = (uchar)s;
  int8_t t = (int8_t)c;
  uint16_t h = (uint16_t)t;
  uint64_t q = (uint64_t)h + l;
  sums[0] += (int64_t)q;
}
