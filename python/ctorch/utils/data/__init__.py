"""torch.utils.data: Dataset, TensorDataset, samplers and DataLoader (worker threads, pin_memory).

Shuffled orders equal PyTorch 1.13's for the same seed: each epoch draws the loader's base seed,
then RandomSampler's seed, from the same generators in the same order as PyTorch."""
import queue
import threading

from ... import _C
from ._utils.collate import default_collate, default_convert  # noqa: F401
from ._utils.pin_memory import pin_memory as _pin_memory


class Dataset:
    """A map-style dataset: __getitem__(index) and __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is an iterable of samples."""

    def __iter__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """Samples are tuples of the tensors' rows at one index."""

    def __init__(self, *tensors):
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """The datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1] if self.cumulative_sizes else 0

    def __getitem__(self, idx):
        if idx < 0:
            idx += len(self)
        for i, end in enumerate(self.cumulative_sizes):
            if idx < end:
                start = self.cumulative_sizes[i - 1] if i else 0
                return self.datasets[i][idx - start]
        raise IndexError("index out of range")


class Subset(Dataset):
    """The samples of dataset at indices."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class Sampler:
    """Yields dataset indices."""

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    """0, 1, ..., len-1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation each epoch (PyTorch 1.13's draws)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if replacement:
            raise NotImplementedError("ctorch: RandomSampler(replacement=True) is not implemented")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is None:
            seed = int(_C.empty((), dtype=_C.int64).random_().item())
            generator = _C.Generator()
            generator.manual_seed(seed)
        else:
            generator = self.generator
        for _ in range(self.num_samples // n):
            yield from _C.randperm(n, generator=generator).tolist()
        yield from _C.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of batch_size."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


class DataLoader:
    """Batches of a dataset: sampling, collation, worker threads and pinned memory."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                             "drop_last")
        self.dataset, self.num_workers, self.pin_memory = dataset, num_workers, pin_memory
        self.timeout, self.worker_init_fn, self.generator = timeout, worker_init_fn, generator
        self.prefetch_factor, self.drop_last = prefetch_factor, drop_last
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.sampler, self.batch_sampler = batch_size, sampler, batch_sampler
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None else default_convert)

    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __len__(self):
        return len(self._index_sampler())

    def _fetch(self, index):
        if self.batch_sampler is not None:
            data = self.collate_fn([self.dataset[i] for i in index])
        else:
            data = self.collate_fn(self.dataset[index])
        return _pin_memory(data) if self.pin_memory else data

    def __iter__(self):
        # _BaseDataLoaderIter draws its base seed first (it seeds workers in PyTorch).
        _C.empty((), dtype=_C.int64).random_(generator=self.generator).item()
        indices = iter(self._index_sampler())
        if self.num_workers == 0:
            for index in indices:
                yield self._fetch(index)
            return
        yield from self._threaded(indices)

    def _threaded(self, indices):
        """Worker threads fetch batches ahead (at most prefetch_factor per worker); results in order."""
        tasks = queue.Queue()
        results = {}
        ready = threading.Condition()
        stop = threading.Event()

        def worker(worker_id):
            if self.worker_init_fn is not None:
                self.worker_init_fn(worker_id)
            while not stop.is_set():
                item = tasks.get()
                if item is None:
                    return
                n, index = item
                try:
                    value = (True, self._fetch(index))
                except BaseException as e:  # noqa: BLE001  (re-raised in the main thread)
                    value = (False, (e, worker_id))
                with ready:
                    results[n] = value
                    ready.notify_all()

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(self.num_workers)]
        for t in threads:
            t.start()
        sent = 0
        try:
            for _ in range(self.prefetch_factor * self.num_workers):
                index = next(indices, None)
                if index is None:
                    break
                tasks.put((sent, index))
                sent += 1
            n = 0
            while n < sent:
                with ready:
                    while n not in results:
                        if not ready.wait(self.timeout if self.timeout > 0 else None):
                            raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds")
                    ok, value = results.pop(n)
                if not ok:
                    e, worker_id = value
                    raise type(e)(f"Caught {type(e).__name__} in DataLoader worker process {worker_id}.\n"
                                  f"Original {e}") from e
                index = next(indices, None)
                if index is not None:
                    tasks.put((sent, index))
                    sent += 1
                n += 1
                yield value
        finally:
            stop.set()
            for _ in threads:
                tasks.put(None)
