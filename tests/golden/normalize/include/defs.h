// defs.h: shared definitions
#pragma once
#define p_Np (p_Nq * p_Nq)
#define SHARED_ARRAY(name, n) @shared float name[n]
