const db=require('/work/main/dist/bench/bench-database.js');
const {Client}=require('/work/main/node_modules/pg');
const {FINISH_ATTEMPTS_SQL}=require('/work/main/dist/src/queue/sql/finish-attempts.sql.js');
const {CLAIM_ACTIONS_SQL}=require('/work/main/dist/src/queue/sql/claim-actions.sql.js');
(async()=>{const url=await db.createMigratedDatabase('aq_chain');
const c=new Client({connectionString:url});await c.connect();
await c.query(`INSERT INTO actions (lock_id,type,payload) SELECT 0,'t','{}' FROM generate_series(1,2000) i`);
await c.query('ANALYZE actions');
let {rows}=await c.query({...CLAIM_ACTIONS_SQL,values:['w',['t'],1,30000]});
let cur={id:rows[0].id,attempt:rows[0].attempts};
let tq=0,tc=0,n=0;
while(cur){await c.query('BEGIN');const a=performance.now();const r=await c.query({...FINISH_ATTEMPTS_SQL,values:['w',[cur.id],[cur.attempt],['done'],['null'],[null],[0],['done'],['t'],30000]});
 const b=performance.now();await c.query('COMMIT');const d=performance.now();tq+=b-a;tc+=d-b;
 const cl=r.rows.find(x=>x.kind==='claimed');n++;cur=cl?{id:cl.id,attempt:cl.attempt}:null;}
console.log('n',n,'query ms',(tq/n).toFixed(3),'commit ms',(tc/n).toFixed(3));
await c.end();await db.dropDatabase('aq_chain');})();
