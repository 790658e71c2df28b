#ifdef __cplusplus
extern "C" {
#endif
struct node { int v; struct node *next; union u { int i; float f; } un; enum color { RED, GREEN } c; };
typedef struct node node_t;
struct node *chead(void);
int cwalk(struct node *p, void *obj);
#ifdef __cplusplus
}
#endif
