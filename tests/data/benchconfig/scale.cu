/* scale.cu - a kernel that compiles only with BAT's defines (tests/
 * test_benchconfig.c): BenchmarkConfig's entries and the launch sizes. */
#if PRECISION != 32 || N != 256
#error "BenchmarkConfig's PRECISION and N are not defined"
#endif
#if GRID_SIZE_X * BLOCK_SIZE_X != N || BLOCK_SIZE_X != BLOCK
#error "the launch defines do not match the launch"
#endif
#if GRID_SIZE_Y != 1 || GRID_SIZE_Z != 1 || BLOCK_SIZE_Y != 1 || BLOCK_SIZE_Z != 1
#error "the launch defines of y and z are not 1"
#endif
#if SHARED_MEMORY_SIZE != BLOCK * 4
#error "SHARED_MEMORY_SIZE is not the spec's SharedMemory"
#endif
#ifdef iterations
#error "BAT's own settings are no defines"
#endif

extern "C" __global__ void scale_kernel(dataType *x)
{
    extern __shared__ dataType tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = x[i];
    x[i] = tile[threadIdx.x] * (dataType)scale;
}
