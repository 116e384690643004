// C++ firmware that declares the device library's functions itself, as the device's headers
// do (no extern "C"): it links against the library's C++ names (firmware/neuron/src/cxx_names.S).
int init_neuron_hbm_allocator();
int init_neuron_dataram_allocator();
int neuron_hbm_allocate(unsigned size, unsigned long long* out_addr, unsigned align);
int neuron_hbm_deallocate(unsigned long long addr);
int neuron_dataram_allocate(unsigned size, void** out_ptr, unsigned align);
int neuron_dataram_deallocate(void* ptr);
int allocate_hbm_stack(unsigned size, unsigned align, unsigned flags);
void switchStack();
void switchStackBack();
enum data_transfer_method { C_MEMCPY = 0, VEC_MEMCPY = 1, DMA = 2 };
void set_data_transfer_method(data_transfer_method m);
int data_transfer_to_dram(void* dram_addr, unsigned long long hbm_addr, unsigned bytes);
int data_transfer_from_dram(unsigned long long hbm_addr, const void* dram_addr, unsigned bytes);
int tensor_stream_copy(unsigned long long dst, unsigned long long src, unsigned long long bytes);

int main() {
  if (init_neuron_hbm_allocator() != 0 || init_neuron_dataram_allocator() != 0) return 1;
  unsigned long long hbm = 0;
  void* tile = nullptr;
  if (neuron_hbm_allocate(8192, &hbm, 0) != 0 || neuron_dataram_allocate(4096, &tile, 0) != 0) return 2;
  allocate_hbm_stack(0, 0, 0);
  switchStack();
  set_data_transfer_method(C_MEMCPY);
  data_transfer_to_dram(tile, hbm, 4096);
  data_transfer_from_dram(hbm + 4096, tile, 4096);
  tensor_stream_copy(hbm, hbm + 4096, 4096);
  switchStackBack();
  neuron_dataram_deallocate(tile);
  return neuron_hbm_deallocate(hbm);
}
