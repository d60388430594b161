import os,re,sys
tot=0; per={}
for root in ['tests','src','stats']:
    for d,_,fs in os.walk(root):
        for f in fs:
            if not f.endswith('.rs'): continue
            p=os.path.join(d,f)
            lines=open(p).read().split('\n')
            intest = root=='tests'
            for l in lines:
                if '#[cfg(test)]' in l: intest=True
                if intest and re.search(r'contains\("',l):
                    tot+=1; per[p]=per.get(p,0)+1
print(tot)
for p,c in sorted(per.items(),key=lambda x:-x[1])[:int(sys.argv[1]) if len(sys.argv)>1 else 0]: print(c,p)
