# expect.py - the figures tests/test_transfer.c checks, computed apart from
# ktune from the times in these files (run from the repository root:
# python3 tests/data/transfer/expect.py).
import json
names=['rtx2080ti','rtx3060','rtx3090']
D=[]
for n in names:
    d=json.load(open(f'tests/data/transfer/{n}.json')); keys=d['tune_params_keys']
    t={}
    for k,v in d['cache'].items():
        kk=','.join(f'{p}={x}' for p,x in zip(keys,k.split(',')))
        t[kk]=v['time'] if isinstance(v['time'],float) else None
    D.append(t)
def frac(t,k):
    o=min(x for x in t.values() if x); return o/t[k] if t[k] else 0.0
def order(srcs):
    keys=sorted(srcs[0])
    mean={k:sum(frac(t,k) for t in srcs)/len(srcs) for k in keys}
    cand=sorted(keys,key=lambda k:(-mean[k],k))
    best=[0]*len(srcs); out=[]
    while cand:
        g=lambda k: sum(max(b,frac(t,k)) for b,t in zip(best,srcs))
        top=max(g(k) for k in cand)
        k=[k for k in cand if g(k)>top-1e-12][0]
        out.append(k); cand.remove(k); best=[max(b,frac(t,k)) for b,t in zip(best,srcs)]
    return out,mean
o,m=order(D)
print('all three:'); [print(' ',k,round(m[k],6)) for k in o]
default='between_method=0,block_size_x=32,tile_size=1,use_method=0'
for i,t in enumerate(D):
    o,m=order([x for j,x in enumerate(D) if j!=i])
    tr=[max(frac(t,k) for k in o[:n]) for n in (1,2,4)]
    warm=[max(frac(t,k) for k in [default]+o[:n-1]) for n in (2,4)]
    print(names[i],'transfer',[round(x,6) for x in tr],'warm',[round(x,6) for x in warm],'cold0',round(frac(t,default),6))
